// kube-controller-manager's pvc-protection controller: a claim being
// deleted loses kubernetes.io/pvc-protection (and so goes) once no pod
// uses it, and a claim not being deleted that lacks the finalizer gets it
// (in_use_protection.h has the rules). Claims are looked at when they
// change and when a pod that used them goes, finishes or was never
// scheduled; a claim the cached pods say is unused is checked against a
// live list of its namespace's pods before it is let go, as a pod made
// just now may not be cached yet. Writes are the service account
// kube-system/pvc-protection-controller's.
//
// Thread safety: construct before the shared informers start; Start/Stop
// from one thread (Stop is idempotent and runs on destruction); Sync from
// any thread.
#ifndef KMOCK_CONTROLLERS_STORAGE_PVC_PROTECTION_CONTROLLER_H_
#define KMOCK_CONTROLLERS_STORAGE_PVC_PROTECTION_CONTROLLER_H_

#include <string>

#include "common/clock.h"
#include "controllers/control_loop.h"
#include "controllers/informer.h"
#include "controllers/resources_lookup.h"
#include "controllers/work_queue.h"
#include "registry/registry.h"

namespace kmock::controllers {

// The pods informer's index of the claims ("ns/claim") a pod refers to.
inline constexpr char kPodsByClaimIndex[] = "spec.volumes.claim";

class PvcProtectionController {
 public:
  // REQUIRES: res has pods and persistentvolumeclaims; `pods` and `claims`
  // are the shared informers, not started yet (this adds kPodsByClaimIndex
  // to `pods`).
  PvcProtectionController(registry::Registry* registry, const Clock* clock,
                          const CoreResources& res, Informer* pods,
                          Informer* claims);
  ~PvcProtectionController();
  PvcProtectionController(const PvcProtectionController&) = delete;
  PvcProtectionController& operator=(const PvcProtectionController&) = delete;

  void Start();
  void Stop();

  // key: "ns/name" of a claim.
  Status Sync(const std::string& key);

 private:
  void QueuePodClaims(const json& pod);
  Result<bool> InUse(const json& claim);

  registry::Registry* registry_;
  CoreResources res_;
  Informer* pods_;
  Informer* claims_;
  WorkQueue queue_;
  ControlLoop loop_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_STORAGE_PVC_PROTECTION_CONTROLLER_H_
