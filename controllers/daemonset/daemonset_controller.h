// kube-controller-manager's DaemonSet controller: for every DaemonSet, one
// pod on each node its template fits (daemonset/node_fit.h), made with the
// node affinity naming the node so the scheduler binds it; failed pods
// replaced after a back-off per node (1 s doubling to 15 min, with the
// FailedDaemonPod event); RollingUpdate within maxUnavailable or maxSurge,
// OnDelete left to the user (daemonset/sync_plan.h); the templates kept as
// ControllerRevisions (daemonset/history.h) with old ones beyond
// revisionHistoryLimit removed; status through the status subresource.
// Orphan pods the selector matches are adopted, pods whose labels moved
// away released. Events: SuccessfulCreate, SuccessfulDelete, FailedCreate,
// FailedDaemonPod, SelectingAll (source daemonset-controller).
//
// Thread safety: construct before the shared informers start; Start/Stop
// from one thread (Stop is idempotent and runs on destruction); Sync from
// any thread.
#ifndef KMOCK_CONTROLLERS_DAEMONSET_DAEMONSET_CONTROLLER_H_
#define KMOCK_CONTROLLERS_DAEMONSET_DAEMONSET_CONTROLLER_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "controllers/apps/pod_owner_routing.h"
#include "controllers/control_loop.h"
#include "controllers/daemonset/sync_plan.h"
#include "controllers/event_recorder.h"
#include "controllers/informer.h"
#include "controllers/replicaset/expectations.h"
#include "controllers/resources_lookup.h"
#include "controllers/work_queue.h"
#include "registry/registry.h"

namespace kmock::controllers {

struct DaemonSetControllerOptions {
  int workers = 2;
  // Most pods created or deleted in one sync.
  int burst_replicas = 250;
  EventSink* event_sink = nullptr;
};

class DaemonSetController {
 public:
  // REQUIRES: res has daemonsets and controllerrevisions; `pods` is the
  // shared pod informer with kByNamespaceIndex and kByControllerIndex,
  // `nodes` the shared node informer; neither started yet.
  DaemonSetController(registry::Registry* registry, const Clock* clock,
                      const CoreResources& res, Informer* pods, Informer* nodes,
                      DaemonSetControllerOptions options = {});
  ~DaemonSetController();
  DaemonSetController(const DaemonSetController&) = delete;
  DaemonSetController& operator=(const DaemonSetController&) = delete;

  void Start();
  void Stop();

  // Syncs the DaemonSet with this key ("ns/name") once.
  Status Sync(const std::string& key);

 private:
  void OnNodeChange(const json* old_node, const json& node);

  // The current revision's hash after making or renumbering it; the old
  // revisions in *old.
  Result<std::string> ConstructHistory(const json& ds, std::vector<json>* old);
  // The DaemonSet's active pods (after adopting orphans and releasing pods
  // it no longer selects), kept alive in *held, grouped per node.
  Result<std::vector<daemonset::NodeState>> NodeStates(
      const json& ds, std::vector<ObjectPtr>* held);
  // Carries out a plan; the first error message, if any.
  std::optional<std::string> Execute(const json& ds, const std::string& hash,
                                     const daemonset::Plan& plan);
  // Drops the failed-pod back-off of a DaemonSet that is gone.
  void ForgetBackoff(const std::string& uid);
  // The failed pods whose node is out of its back-off (an event each).
  std::vector<const json*> FailedPodsToDelete(const json& ds,
                                              const daemonset::Plan& plan);
  Status CleanupHistory(const json& ds, const std::vector<json>& old,
                        const std::vector<daemonset::NodeState>& nodes);
  Status WriteStatus(const json& ds, json status);
  Status PatchPodOwner(const json& ds, const json& pod, bool adopt);
  void Report(const json& ds, const char* type, const std::string& reason,
              const std::string& message);

  registry::Registry* registry_;
  const Clock* clock_;
  CoreResources res_;
  Informer* pods_;
  Informer* nodes_;
  DaemonSetControllerOptions options_;
  WorkQueue queue_;
  std::unique_ptr<Informer> daemonsets_;
  std::unique_ptr<Informer> revisions_;
  replicaset::Expectations expectations_;
  apps::PodOwnerRouting pod_routing_;
  std::unique_ptr<EventRecorder> events_;
  // Failed-pod back-off per "<ds uid>/<node>": when the last deletion was
  // and how long the next wait is.
  struct Backoff {
    TimePoint last{};
    std::chrono::nanoseconds delay{};
  };
  std::mutex backoff_mu_;
  std::map<std::string, Backoff> backoff_;
  ControlLoop loop_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_DAEMONSET_DAEMONSET_CONTROLLER_H_
