// The default scheduler: binds every pod whose spec.schedulerName is
// default-scheduler (or empty) and that has no spec.nodeName to the best
// node (scheduling/select_node.h), through pods/binding, and records a
// Scheduled event. A pod that fits nowhere gets PodScheduled=False
// (reason Unschedulable) and a FailedScheduling event, and is tried again
// whenever a node or a pod changes. Nodes are read through NodeInfo views
// built once per node revision; in clusters of 100 nodes or more a decision
// searches only part of them, round robin, as kube-scheduler does.
//
// Thread safety: Start/Stop from one thread; informer handlers and one
// worker thread run inside.
#ifndef KMOCK_CONTROLLERS_SCHEDULER_H_
#define KMOCK_CONTROLLERS_SCHEDULER_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "common/clock.h"
#include "common/rng.h"
#include "controllers/event_recorder.h"
#include "controllers/informer.h"
#include "controllers/resources_lookup.h"
#include "controllers/scheduling/node_info.h"
#include "controllers/scheduling/resources.h"
#include "controllers/work_queue.h"
#include "controllers/worker_pool.h"
#include "registry/registry.h"

namespace kmock::controllers {

// The pods informer index the scheduler and kubelets share.
inline constexpr char kPodsByNodeIndex[] = "spec.nodeName";
std::vector<std::string> PodNodeIndex(const json& pod);

struct SchedulerOptions {
  // The node kube-scheduler runs on: reportingInstance
  // "default-scheduler-<host>".
  std::string host;
  // Where events are queued for writing (event_sink.h); null: each is
  // written before the component goes on.
  EventSink* event_sink = nullptr;
  // The PersistentVolumeClaims (not started yet; null: pods with claim
  // volumes are scheduled as if their claims were bound). A claim that
  // changes brings the pods waiting on claims back.
  Informer* claims = nullptr;
};

class Scheduler {
 public:
  // REQUIRES: pods has the kPodsByNodeIndex index; informers not started.
  Scheduler(registry::Registry* registry, const Clock* clock, Rng* rng,
            CoreResources res, Informer* pods, Informer* nodes,
            SchedulerOptions options);
  ~Scheduler();

  void Start();
  void Stop();

  // Schedules (or fails to schedule) the pod with this key once.
  Status Sync(const std::string& key);

  // Pods bound here that the pod informer has not shown bound yet.
  size_t AssumedPods();

 private:
  bool Wants(const json& pod) const;
  void RequeueUnschedulable();
  // The node selector requirements of the volumes the pod's bound claims
  // use.
  json VolumeNodeExpressions(const json& pod);
  // For a pod with claim volumes: nullopt to go on and bind it to `node`,
  // else what Sync returns (it waits for its claims, or fits no node).
  std::optional<Status> CheckClaims(const json& pod, const std::string& node,
                                    size_t nodes);
  Status MarkUnschedulable(const json& pod, const std::string& message);

  registry::Registry* registry_;
  const Clock* clock_;
  Rng* rng_;
  CoreResources res_;
  Informer* pods_;
  Informer* nodes_;
  SchedulerOptions options_;
  EventRecorder recorder_;
  WorkQueue queue_;
  std::unique_ptr<WorkerPool> workers_;

  std::mutex mu_;
  std::set<std::string> unschedulable_;
  // Bound by us but not yet seen bound in the cache: key -> (node, request).
  std::map<std::string, std::pair<std::string, scheduling::Resources>> assumed_;
  std::map<std::string, std::string> last_failure_;  // key -> message
  // What the pods bound to each node ask for (fit and scoring), kept up to
  // date from the pod informer's events as kube-scheduler's node cache is,
  // so that a decision does not sum every pod of every node again.
  struct Demand {
    scheduling::Resources fit;
    scheduling::Resources score;
  };
  struct Counted {
    std::string node;
    std::string uid;
    Demand demand;
  };
  std::unordered_map<std::string, Counted> counted_;    // pod key ->
  std::unordered_map<std::string, Demand> node_usage_;  // node -> sums
  // Every node as the filters read it, by name (the order searched), rebuilt
  // when the node changes; and where the next search starts.
  std::map<std::string, std::shared_ptr<const scheduling::NodeInfo>>
      nodes_by_name_;
  size_t next_start_ = 0;

  // Counts the pod under key as it is now (null: deleted): on its node
  // while bound and not terminal. REQUIRES: mu_ held.
  void CountLocked(const std::string& key, const nlohmann::json* pod);
  // Records the node as it is now (null: deleted).
  void UpdateNode(const json& node, bool deleted);
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_SCHEDULER_H_
