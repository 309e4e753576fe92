#include "server/watch_fanout.h"

#include <utility>

#include "common/thread_name.h"

namespace kmock::server {

WatchFanout::WatchFanout(int threads)
    : thread_count_(threads < 1 ? 1 : threads) {}

WatchFanout::~WatchFanout() { Stop(); }

void WatchFanout::Start() {
  if (!threads_.empty()) return;
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = false;
  }
  for (int i = 0; i < thread_count_; ++i)
    threads_.emplace_back([this] { Run(); });
}

void WatchFanout::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
    ready_.clear();
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void WatchFanout::Ready(std::weak_ptr<FanoutTarget> target) {
  bool wake = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stop_) return;
    ready_.push_back(std::move(target));
    // A busy writer comes back for it: wake only an idle one (a write
    // queues a thousand streams at once).
    wake = idle_ > 0;
  }
  if (wake) cv_.notify_one();
}

void WatchFanout::Run() {
  NameThisThread("watch-fanout");
  while (true) {
    std::weak_ptr<FanoutTarget> next;
    {
      std::unique_lock<std::mutex> l(mu_);
      ++idle_;
      cv_.wait(l, [this] { return stop_ || !ready_.empty(); });
      --idle_;
      if (stop_) return;
      next = std::move(ready_.front());
      ready_.pop_front();
    }
    if (std::shared_ptr<FanoutTarget> target = next.lock()) target->Deliver();
    // `target` may be the last owner: the stream then ends here, outside
    // every lock.
  }
}

}  // namespace kmock::server
