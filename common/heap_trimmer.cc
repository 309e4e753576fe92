#include "common/heap_trimmer.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace kmock {

bool HeapTrimmer::TrimNow() {
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
