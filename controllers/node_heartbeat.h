// What every kubelet does for its node besides running pods: renew its
// Lease in kube-node-lease every 10 s, the nodes' renewals spread evenly
// over those 10 s as independently started kubelets' are (holderIdentity the
// node, leaseDurationSeconds 40, renewTime a MicroTime, owned by the Node), and
// report node status (the conditions' lastHeartbeatTime) every 5 minutes
// when nothing changes, as nodeStatusReportFrequency does.
//
// One thread keeps every node's schedule; it follows the injected clock, so
// on a FakeClock heartbeats happen as the clock is advanced. The writes due
// at one look go out from several threads at once, as independent kubelets'
// would, so the store commits them together (one fsync, not one per node).
//
// Thread safety: Start/Stop from one thread; Beat is for tests and must
// not run concurrently with the thread.
#ifndef KMOCK_CONTROLLERS_NODE_HEARTBEAT_H_
#define KMOCK_CONTROLLERS_NODE_HEARTBEAT_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "controllers/resources_lookup.h"
#include "registry/registry.h"

namespace kmock::controllers {

struct HeartbeatOptions {
  std::chrono::seconds lease_renew{10};
  std::chrono::seconds lease_duration{40};
  std::chrono::seconds status_report{300};
  // How often the thread looks at the clock (real time).
  std::chrono::milliseconds poll{50};
  // Writes due at one poll go out from up to this many threads at once.
  size_t concurrent_writes = 8;
};

class NodeHeartbeats {
 public:
  NodeHeartbeats(registry::Registry* registry, const Clock* clock,
                 CoreResources res, std::vector<std::string> nodes,
                 HeartbeatOptions options = {});
  ~NodeHeartbeats();

  void Start();
  void Stop();

  // Renews every lease and reports status whose time has come. Returns
  // the first error.
  Status Beat();
  Status RenewLease(const std::string& node);
  Status ReportStatus(const std::string& node);

 private:
  registry::Registry* registry_;
  const Clock* clock_;
  CoreResources res_;
  std::vector<std::string> nodes_;
  HeartbeatOptions options_;
  // When each node (same index as nodes_) next renews its lease and
  // reports status: a poll of 5,000 nodes compares times, nothing more.
  std::vector<TimePoint> next_lease_, next_status_;
  // Failed writes in a row per node, for the kubelet's retry back-off
  // (RetryDelay).
  std::vector<int> lease_failures_, status_failures_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_NODE_HEARTBEAT_H_
