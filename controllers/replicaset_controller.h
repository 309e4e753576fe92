// The ReplicaSet controller, as kube-controller-manager's: for every
// ReplicaSet it claims the active pods its selector matches (adopting
// orphans, releasing pods whose labels moved away, leaving pods of other
// controllers alone), creates missing pods from the template in slow-start
// batches (1, 2, 4, ... at most 500 per sync) with names "<rs>-<5 chars>",
// deletes surplus pods in upstream's order (replicaset/pod_ranking.h),
// records SuccessfulCreate / SuccessfulDelete events (source
// replicaset-controller) and writes status through the status subresource
// when it changed.
//
// Thread safety: Start/Stop from one thread; informer handlers and the
// worker threads run inside.
#ifndef KMOCK_CONTROLLERS_REPLICASET_CONTROLLER_H_
#define KMOCK_CONTROLLERS_REPLICASET_CONTROLLER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "controllers/apps/pod_owner_routing.h"
#include "controllers/event_recorder.h"
#include "controllers/informer.h"
#include "controllers/replicaset/expectations.h"
#include "controllers/replicaset/pod_facts.h"
#include "controllers/resources_lookup.h"
#include "controllers/work_queue.h"
#include "controllers/worker_pool.h"
#include "registry/registry.h"

namespace kmock::controllers {

// An informer index of objects by metadata.namespace, which the pods and
// replicasets informers need for the workload controllers.
inline constexpr char kByNamespaceIndex[] = "metadata.namespace";
std::vector<std::string> NamespaceIndex(const json& obj);
// An index of pods by their controller: "uid:<controller uid>", or
// "orphan:<namespace>" for pods without one. A ReplicaSet's sync looks at
// its own pods and its namespace's orphans only, not at every pod there.
inline constexpr char kByControllerIndex[] = "controller";
std::vector<std::string> ControllerIndex(const json& obj);

struct ReplicaSetControllerOptions {
  int workers = 2;
  // Most pods created or deleted in one sync.
  int burst_replicas = 500;
  // Where events are queued for writing (event_sink.h); null: each is
  // written before the component goes on.
  EventSink* event_sink = nullptr;
  // Run ReplicationControllers (v1; a plain label map as selector) instead:
  // kube-controller-manager's replication controller is the ReplicaSet
  // controller over them, and so is ours (events from
  // replication-controller).
  bool replication_controllers = false;
};

class ReplicaSetController {
 public:
  // REQUIRES: pods and replicasets (the informer of the kind it runs) have
  // kByNamespaceIndex, pods also kByControllerIndex; res has that kind;
  // informers not started.
  ReplicaSetController(registry::Registry* registry, const Clock* clock,
                       CoreResources res, Informer* pods, Informer* replicasets,
                       ReplicaSetControllerOptions options = {});
  ~ReplicaSetController();
  ReplicaSetController(const ReplicaSetController&) = delete;
  ReplicaSetController& operator=(const ReplicaSetController&) = delete;

  void Start();
  void Stop();

  // Syncs the ReplicaSet with this key ("ns/name") once.
  Status Sync(const std::string& key);

 private:
  // The active pods the ReplicaSet (key) owns after adopting and
  // releasing, and their facts in the same order.
  Result<std::vector<ObjectPtr>> ClaimPods(
      const std::string& key, const json& rs,
      std::vector<replicaset::PodFacts>* owned_facts);
  Status Adopt(const json& rs, const json& pod);
  Status Release(const json& rs, const json& pod);
  // Creates or deletes pods; returns the error message of a failed write.
  std::optional<std::string> ManageReplicas(const json& rs,
                                            const std::vector<ObjectPtr>& pods);
  Status CreatePod(const json& rs);
  Status DeletePod(const json& rs, const json& pod);
  Status WriteStatus(const json& rs, const json& status);
  // Active pods of every ReplicaSet sharing this one's controller owner.
  std::vector<json> RelatedPods(const json& rs) const;

  // The kind it runs and how it names itself.
  struct OwnerKind {
    const api::ResourceInfo* res;
    std::string kind;
    std::string api_version;
    std::string group;
    std::string component;  // also its service account
  };

  registry::Registry* registry_;
  const Clock* clock_;
  CoreResources res_;
  Informer* pods_;
  Informer* replicasets_;
  ReplicaSetControllerOptions options_;
  OwnerKind kind_;
  EventRecorder recorder_;
  replicaset::Expectations expectations_;
  replicaset::PodFactsCache pod_facts_;
  WorkQueue queue_;
  apps::PodOwnerRouting pod_routing_;
  std::unique_ptr<WorkerPool> workers_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_REPLICASET_CONTROLLER_H_
