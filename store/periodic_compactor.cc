#include "store/periodic_compactor.h"

#include <utility>

#include "common/thread_name.h"

namespace kmock::store {

PeriodicCompactor::PeriodicCompactor(RevisionFn current_revision,
                                     CompactFn compact)
    : current_revision_(std::move(current_revision)),
      compact_(std::move(compact)) {}

PeriodicCompactor::~PeriodicCompactor() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PeriodicCompactor::Start(std::chrono::milliseconds interval) {
  thread_ = std::thread([this, interval] {
    NameThisThread("compactor");
    Loop(interval);
  });
}

Status PeriodicCompactor::Tick() {
  std::lock_guard<std::mutex> l(mu_);
  Status status;
  if (recorded_ > last_compacted_) {
    status = compact_(recorded_);
    // kCompacted: someone already compacted past it, which is as good.
    if (status.ok() || status.code() == StatusCode::kCompacted) {
      last_compacted_ = recorded_;
    }
  }
  recorded_ = current_revision_();
  return status;
}

void PeriodicCompactor::Loop(std::chrono::milliseconds interval) {
  std::unique_lock<std::mutex> l(mu_);
  while (!cv_.wait_for(l, interval, [this] { return stopping_; })) {
    l.unlock();
    (void)Tick();  // failures are retried at the next tick
    l.lock();
  }
}

}  // namespace kmock::store
