#include "server/stream_tracker.h"

namespace kmock::server {

bool StreamTracker::Add(registry::ObjectWatcher* watcher) {
  std::lock_guard<std::mutex> l(mu_);
  if (stopped_.load()) return false;
  watchers_.insert(watcher);
  return true;
}

void StreamTracker::Remove(registry::ObjectWatcher* watcher) {
  std::lock_guard<std::mutex> l(mu_);
  watchers_.erase(watcher);
}

void StreamTracker::StopAll() {
  std::lock_guard<std::mutex> l(mu_);
  stopped_.store(true);
  for (registry::ObjectWatcher* w : watchers_) w->Stop();
}

size_t StreamTracker::size() const {
  std::lock_guard<std::mutex> l(mu_);
  return watchers_.size();
}

}  // namespace kmock::server
