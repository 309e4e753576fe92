// kube-controller-manager's resource quota controller: keeps each
// ResourceQuota's status (hard as the spec says, used as counted from the
// objects in its namespace; registry/admission/quota_usage.h says what
// counts). Admission charges creates as they happen; this controller gives
// back what deleted or finished objects held: at once for pods (deleted or
// finished), and for every other kind at the next resync.
//
// Thread safety: construct before the shared pod informer starts;
// Start/Stop from one thread (Stop is idempotent and runs on destruction);
// Sync from any thread.
#ifndef KMOCK_CONTROLLERS_QUOTA_RESOURCE_QUOTA_CONTROLLER_H_
#define KMOCK_CONTROLLERS_QUOTA_RESOURCE_QUOTA_CONTROLLER_H_

#include <chrono>
#include <memory>
#include <string>

#include "common/clock.h"
#include "controllers/control_loop.h"
#include "controllers/informer.h"
#include "controllers/work_queue.h"
#include "registry/registry.h"

namespace kmock::controllers {

struct ResourceQuotaControllerOptions {
  // Every quota is recounted this often (clock time).
  std::chrono::seconds resync{10};
};

class ResourceQuotaController {
 public:
  // `pods` watches the pods (not started yet).
  ResourceQuotaController(registry::Registry* registry, const Clock* clock,
                          const api::ResourceInfo* quotas, Informer* pods,
                          ResourceQuotaControllerOptions options = {});
  ~ResourceQuotaController();
  ResourceQuotaController(const ResourceQuotaController&) = delete;
  ResourceQuotaController& operator=(const ResourceQuotaController&) = delete;

  void Start();
  void Stop();

  // Recounts one quota ("ns/name").
  Status Sync(const std::string& key);

 private:
  void QueueNamespace(const std::string& ns);

  registry::Registry* registry_;
  const api::ResourceInfo* quotas_res_;
  ResourceQuotaControllerOptions options_;
  WorkQueue queue_;
  std::unique_ptr<Informer> quotas_;
  ControlLoop loop_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_QUOTA_RESOURCE_QUOTA_CONTROLLER_H_
