#include "common/run_concurrently.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace kmock {

void RunConcurrently(size_t n, size_t threads,
                     const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k = next++; k < n; k = next++) fn(k);
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < std::min(threads, n); ++t) helpers.emplace_back(work);
  work();
  for (auto& h : helpers) h.join();
}

}  // namespace kmock
