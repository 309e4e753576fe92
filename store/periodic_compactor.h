// The periodic compaction loop, as kube-apiserver runs it against etcd:
// every interval, compact to the revision that was current one interval
// earlier, so at least one interval of history is always kept.
//
// Thread safety: Tick may be called from any thread (tests call it
// directly); Start and the destructor from the owner only. The destructor
// stops and joins the loop thread.
#ifndef KMOCK_STORE_PERIODIC_COMPACTOR_H_
#define KMOCK_STORE_PERIODIC_COMPACTOR_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "common/status.h"

namespace kmock::store {

class PeriodicCompactor {
 public:
  using RevisionFn = std::function<int64_t()>;
  using CompactFn = std::function<Status(int64_t)>;

  PeriodicCompactor(RevisionFn current_revision, CompactFn compact);
  ~PeriodicCompactor();
  PeriodicCompactor(const PeriodicCompactor&) = delete;
  PeriodicCompactor& operator=(const PeriodicCompactor&) = delete;

  // Starts a thread that calls Tick every interval. REQUIRES: interval > 0,
  // not started yet.
  void Start(std::chrono::milliseconds interval);

  // One step: compacts to the revision recorded by the previous step (if it
  // is newer than what this loop compacted last), then records the current
  // revision. Returns the compaction's status (OK when none was due).
  Status Tick();

 private:
  void Loop(std::chrono::milliseconds interval);

  RevisionFn current_revision_;
  CompactFn compact_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;       // guarded by mu_
  int64_t recorded_ = 0;        // guarded by mu_
  int64_t last_compacted_ = 0;  // guarded by mu_
  std::thread thread_;
};

}  // namespace kmock::store

#endif  // KMOCK_STORE_PERIODIC_COMPACTOR_H_
