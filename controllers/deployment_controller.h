// The Deployment controller, as kube-controller-manager's: for every
// Deployment it claims the ReplicaSets its selector matches, finds or
// creates the new ReplicaSet ("<deployment>-<pod-template-hash>", the hash
// label added to its selector, template and pods), and rolls out:
// RollingUpdate within maxSurge/maxUnavailable, step by step as pods
// become available, or Recreate (old pods gone first). It scales several
// active ReplicaSets proportionally when the deployment is resized
// mid-rollout or while paused, keeps the revision annotations, deletes
// history beyond revisionHistoryLimit, and writes the status and the
// Available/Progressing conditions (deployment/conditions.h), checking the
// progress deadline on the injected Clock. ScalingReplicaSet events come
// from source deployment-controller.
//
// Thread safety: Start/Stop from one thread; informer handlers and the
// worker threads run inside.
#ifndef KMOCK_CONTROLLERS_DEPLOYMENT_CONTROLLER_H_
#define KMOCK_CONTROLLERS_DEPLOYMENT_CONTROLLER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "controllers/event_recorder.h"
#include "controllers/informer.h"
#include "controllers/resources_lookup.h"
#include "controllers/work_queue.h"
#include "controllers/worker_pool.h"
#include "registry/registry.h"

namespace kmock::controllers {

struct DeploymentControllerOptions {
  int workers = 2;
  // Where events are queued for writing (event_sink.h); null: each is
  // written before the component goes on.
  EventSink* event_sink = nullptr;
};

class DeploymentController {
 public:
  // REQUIRES: pods have kByNamespaceIndex (replicaset_controller.h); res
  // has deployments and replicasets; informers not started (an index of
  // ReplicaSets by controller is added here).
  DeploymentController(registry::Registry* registry, const Clock* clock,
                       CoreResources res, Informer* pods, Informer* replicasets,
                       Informer* deployments,
                       DeploymentControllerOptions options = {});
  ~DeploymentController();
  DeploymentController(const DeploymentController&) = delete;
  DeploymentController& operator=(const DeploymentController&) = delete;

  void Start();
  void Stop();

  // Syncs the Deployment with this key ("ns/name") once.
  Status Sync(const std::string& key);

 private:
  // The new ReplicaSet (if any) and all the others.
  struct Sets {
    std::optional<json> new_rs;
    std::vector<json> old;
    std::vector<json> All() const;
  };

  void OnReplicaSet(const json& rs);
  std::optional<std::string> OwnerKey(const json& rs) const;

  Result<std::vector<json>> ClaimReplicaSets(const json& d);
  Result<Sets> SyncRevision(json* d, const std::vector<json>& rs_list,
                            bool create);
  Result<json> CreateNewReplicaSet(json* d, const std::vector<json>& old,
                                   const std::string& revision);

  // Each takes the sets SyncRevision made of rs_list at the start of the
  // sync (with the new set as written if it wrote it).
  Status SyncScale(json* d, Sets sets);
  Status RolloutRolling(json* d, const std::vector<json>& rs_list, Sets sets);
  Status RolloutRecreate(json* d, const std::vector<json>& rs_list, Sets sets);
  bool IsScalingEvent(const json& d, const Sets& sets) const;
  Status Scale(const json& d, Sets* sets);
  Result<bool> ReconcileNewReplicaSet(const json& d, Sets* sets);
  Result<bool> ReconcileOldReplicaSets(const json& d, Sets* sets);
  bool OldPodsRunning(const Sets& sets) const;
  Status CleanupHistory(const json& d, const std::vector<json>& old);
  Status SyncRolloutStatus(json* d, const Sets& sets);
  Status SyncStatusOnly(json* d, const std::vector<json>& rs_list);

  // Scales rs to new_scale (and refreshes its replicas annotations),
  // recording a ScalingReplicaSet event; true when the size changed.
  Result<bool> ScaleReplicaSet(json* rs, int64_t new_scale, const json& d);
  Status WriteStatus(json* d);
  Status WriteReplicaSet(json* rs);

  registry::Registry* registry_;
  const Clock* clock_;
  CoreResources res_;
  Informer* pods_;
  Informer* replicasets_;
  Informer* deployments_;
  DeploymentControllerOptions options_;
  EventRecorder recorder_;
  WorkQueue queue_;
  std::unique_ptr<WorkerPool> workers_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_DEPLOYMENT_CONTROLLER_H_
