// Names the calling thread as `top -H`, `ps -L`, perf and gdb show it
// ("scheduler", "inf/pods", "watch-fanout"), so that a busy kubemock says
// which of its loops is busy. Linux keeps the first 15 bytes.
//
// Thread safety: names only the calling thread; call it from any thread.
#ifndef KMOCK_COMMON_THREAD_NAME_H_
#define KMOCK_COMMON_THREAD_NAME_H_

#include <string>
#include <string_view>

namespace kmock {

void NameThisThread(std::string_view name);

// The calling thread's name ("" if it cannot be read).
std::string ThisThreadName();

}  // namespace kmock

#endif  // KMOCK_COMMON_THREAD_NAME_H_
