// kube-controller-manager's pv-protection controller: a PersistentVolume
// being deleted loses kubernetes.io/pv-protection (and so goes) once it is
// not Bound (the volume controller marks it Released when its claim goes),
// and a volume not being deleted that lacks the finalizer gets it
// (in_use_protection.h). Writes are the service account
// kube-system/pv-protection-controller's.
//
// Thread safety: construct before the shared informers start; Start/Stop
// from one thread (Stop is idempotent and runs on destruction); Sync from
// any thread.
#ifndef KMOCK_CONTROLLERS_STORAGE_PV_PROTECTION_CONTROLLER_H_
#define KMOCK_CONTROLLERS_STORAGE_PV_PROTECTION_CONTROLLER_H_

#include <string>

#include "common/clock.h"
#include "controllers/control_loop.h"
#include "controllers/informer.h"
#include "controllers/work_queue.h"
#include "registry/registry.h"

namespace kmock::controllers {

class PvProtectionController {
 public:
  // REQUIRES: `volumes` is the shared informer of persistentvolumes, not
  // started yet.
  PvProtectionController(registry::Registry* registry, const Clock* clock,
                         Informer* volumes);
  ~PvProtectionController();
  PvProtectionController(const PvProtectionController&) = delete;
  PvProtectionController& operator=(const PvProtectionController&) = delete;

  void Start();
  void Stop();

  // name: a volume's.
  Status Sync(const std::string& name);

 private:
  registry::Registry* registry_;
  Informer* volumes_;
  WorkQueue queue_;
  ControlLoop loop_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_STORAGE_PV_PROTECTION_CONTROLLER_H_
