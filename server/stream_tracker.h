// Keeps the watch streams that are open, so that stopping the server can end
// them all: each stream registers its watcher while it runs; StopAll marks
// the tracker stopped and stops every registered watcher, which wakes its
// stream up to finish.
//
// Thread safety: every method is safe from any thread.
#ifndef KMOCK_SERVER_STREAM_TRACKER_H_
#define KMOCK_SERVER_STREAM_TRACKER_H_

#include <atomic>
#include <mutex>
#include <set>

#include "registry/registry.h"

namespace kmock::server {

class StreamTracker {
 public:
  // Registers a running watcher; false (and nothing kept) once stopped.
  bool Add(registry::ObjectWatcher* watcher);
  // Unregisters; after it returns StopAll no longer touches the watcher.
  void Remove(registry::ObjectWatcher* watcher);
  void StopAll();
  bool stopped() const { return stopped_.load(); }
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::set<registry::ObjectWatcher*> watchers_;  // guarded by mu_
  std::atomic<bool> stopped_{false};
};

}  // namespace kmock::server

#endif  // KMOCK_SERVER_STREAM_TRACKER_H_
