// Gives the heap's free memory back to the operating system now and then.
//
// glibc keeps what a burst of allocations freed in its arenas for reuse:
// after a 5,000-node cluster's bootstrap, 540 MB of the process's 850 MB
// resident was free heap nobody would ask for again (the bootstrap's
// objects, informer objects gone cold). malloc_trim(0) returns those pages,
// and where jemalloc is linked (the server), a purge of every arena does;
// HeapTrimmer does it once when asked and then on a fixed interval, from
// its own thread, so no request waits for it.
//
// Thread safety: Start and Stop from one thread; TrimNow from any.
#ifndef KMOCK_COMMON_HEAP_TRIMMER_H_
#define KMOCK_COMMON_HEAP_TRIMMER_H_

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace kmock {

class HeapTrimmer {
 public:
  explicit HeapTrimmer(std::chrono::milliseconds interval)
      : interval_(interval) {}
  ~HeapTrimmer() { Stop(); }
  HeapTrimmer(const HeapTrimmer&) = delete;
  HeapTrimmer& operator=(const HeapTrimmer&) = delete;

  // Trims now, then every interval until Stop.
  void Start();
  // Idempotent.
  void Stop();

  // Returns free heap memory to the system; true if any was released.
  // False (and nothing done) where the C library cannot.
  static bool TrimNow();

 private:
  const std::chrono::milliseconds interval_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace kmock

#endif  // KMOCK_COMMON_HEAP_TRIMMER_H_
