#include "common/heap_trimmer.h"

#include "common/thread_name.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace kmock {

// jemalloc's control interface when the program links it (the server
// does), else null.
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp,
                       void* newp, size_t newlen) __attribute__((weak));

bool HeapTrimmer::TrimNow() {
  if (mallctl != nullptr) {
    // Every arena (MALLCTL_ARENAS_ALL) returns its unused dirty pages.
    return mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0) == 0;
  }
#if defined(__GLIBC__)
  return malloc_trim(0) == 1;
#else
  return false;
#endif
}

void HeapTrimmer::Start() {
  if (thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = false;
  }
  thread_ = std::thread([this] {
    NameThisThread("heap-trimmer");
    std::unique_lock<std::mutex> l(mu_);
    while (!stop_) {
      l.unlock();
      TrimNow();
      l.lock();
      cv_.wait_for(l, interval_, [this] { return stop_; });
    }
  });
}

void HeapTrimmer::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace kmock
