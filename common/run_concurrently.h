// Running independent writes at once so the store can commit them together:
// writes made one after another from one thread each pay their own commit
// (and fsync); made from several threads, the store's group commit joins
// them, as it joins independent clients' writes.
//
// Thread safety: fn is called from several threads at once, each index
// exactly once; RunConcurrently returns after every call has returned.
#ifndef KMOCK_COMMON_RUN_CONCURRENTLY_H_
#define KMOCK_COMMON_RUN_CONCURRENTLY_H_

#include <cstddef>
#include <functional>

namespace kmock {

// Calls fn(0) ... fn(n - 1) from up to `threads` threads (the calling one
// among them); with one thread or one call, inline.
void RunConcurrently(size_t n, size_t threads,
                     const std::function<void(size_t)>& fn);

}  // namespace kmock

#endif  // KMOCK_COMMON_RUN_CONCURRENTLY_H_
