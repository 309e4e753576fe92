// kube-controller-manager's persistent volume controller, with the EBS CSI
// driver's external provisioner folded in (volume_binding.h decides):
//
// - a claim binds to the smallest Available volume that fits it (both sides
//   written: the volume's claimRef and phase Bound, the claim's volumeName,
//   bind annotations and status);
// - a claim of a class this cluster provisions gets a new volume
//   pvc-<uid> (events ExternalProvisioning, Provisioning,
//   ProvisioningSucceeded) at once for an Immediate class, and for a
//   WaitForFirstConsumer class once the scheduler has picked a node for a
//   pod using it (annotation volume.kubernetes.io/selected-node; until then
//   the event WaitForFirstConsumer), in that node's zone;
// - a volume whose claim is gone is Released, and deleted when its reclaim
//   policy is Delete and this cluster's provisioner made it; a volume
//   without a claim is Available; a bound claim whose volume is gone is
//   Lost.
//
// Thread safety: construct before the shared informers start; Start/Stop
// from one thread (Stop is idempotent and runs on destruction); Sync from
// any thread.
#ifndef KMOCK_CONTROLLERS_STORAGE_VOLUME_CONTROLLER_H_
#define KMOCK_CONTROLLERS_STORAGE_VOLUME_CONTROLLER_H_

#include <memory>
#include <string>

#include "common/clock.h"
#include "common/rng.h"
#include "controllers/control_loop.h"
#include "controllers/event_recorder.h"
#include "controllers/informer.h"
#include "controllers/resources_lookup.h"
#include "controllers/work_queue.h"
#include "registry/registry.h"

namespace kmock::controllers {

struct VolumeControllerOptions {
  EventSink* event_sink = nullptr;
  // The node kube-controller-manager runs on, for its events.
  std::string host;
};

class VolumeController {
 public:
  // REQUIRES: res has persistentvolumeclaims, persistentvolumes and
  // storageclasses; `claims` watches the claims, `volumes` the volumes and
  // `nodes` the nodes, none started yet.
  VolumeController(registry::Registry* registry, const Clock* clock, Rng* rng,
                   const CoreResources& res, Informer* claims,
                   Informer* volumes, Informer* nodes,
                   VolumeControllerOptions options = {});
  ~VolumeController();
  VolumeController(const VolumeController&) = delete;
  VolumeController& operator=(const VolumeController&) = delete;

  void Start();
  void Stop();

  // "claim/<ns>/<name>" or "volume/<name>".
  Status Sync(const std::string& key);

 private:
  Status SyncClaim(const std::string& key);
  Status SyncVolume(const std::string& name);
  Status Bind(const json& volume, const json& claim);
  Status Provision(const json& claim, const json& storage_class,
                   const std::string& driver);
  Status WriteStatus(const api::ResourceInfo& res, const json& obj,
                     json status);
  std::string ZoneFor(const json& claim);

  registry::Registry* registry_;
  Rng* rng_;
  CoreResources res_;
  Informer* claims_;
  Informer* volumes_;
  Informer* nodes_;
  VolumeControllerOptions options_;
  WorkQueue queue_;
  std::unique_ptr<Informer> classes_;
  std::unique_ptr<EventRecorder> events_;
  std::unique_ptr<EventRecorder> provisioner_events_;
  ControlLoop loop_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_STORAGE_VOLUME_CONTROLLER_H_
