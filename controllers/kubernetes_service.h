// Keeps the default/kubernetes Service in existence, as kube-apiserver's
// kubernetes-service controller (pkg/controlplane/controller/
// kubernetesservice) does: every `interval` (10 s of the injected clock,
// counted from the start of the previous pass, whatever that pass took) it
// reads the Service and, when it is missing, creates it
// again with the same spec: the first address of the service range
// (10.96.0.1, always the same), port "https" 443 -> the API server's port.
// The new object gets a new uid and creationTimestamp, as a real server's
// does. Each pass also makes the Service's Endpoints (labelled
// endpointslice.kubernetes.io/skip-mirror) and EndpointSlice "kubernetes"
// when missing, naming the advertised address and port "https", as
// kube-apiserver's endpoint reconciler writes them. A Service that exists
// is left as it is (kube-apiserver stopped
// correcting its ports and type after start-up in 1.17), and there is no
// reaction to the delete itself: the Service returns within one interval.
//
// Thread safety: Start/Stop from one thread (Stop is idempotent and runs on
// destruction); Sync from any thread.
#ifndef KMOCK_CONTROLLERS_KUBERNETES_SERVICE_H_
#define KMOCK_CONTROLLERS_KUBERNETES_SERVICE_H_

#include <chrono>
#include <memory>
#include <string>

#include "common/clock.h"
#include "controllers/resources_lookup.h"
#include "controllers/work_queue.h"
#include "controllers/worker_pool.h"
#include "registry/registry.h"

namespace kmock::controllers {

struct KubernetesServiceOptions {
  // kube-apiserver's EndpointInterval (--endpoint-reconciler's period).
  std::chrono::milliseconds interval{10000};
  // The API server's secure port: the Service's targetPort.
  int target_port = 6443;
  // The address kube-apiserver advertises (its node's): the Endpoints and
  // EndpointSlice "kubernetes" name it. Empty: they are not made.
  std::string advertise_address;
};

class KubernetesServiceController {
 public:
  KubernetesServiceController(registry::Registry* registry, const Clock* clock,
                              const CoreResources& res,
                              KubernetesServiceOptions options = {});
  ~KubernetesServiceController();
  KubernetesServiceController(const KubernetesServiceController&) = delete;
  KubernetesServiceController& operator=(const KubernetesServiceController&) =
      delete;

  // Starts the periodic pass (the first at once).
  void Start();
  // Stops the pass. Idempotent.
  void Stop();

  // One pass: creates the Service, its Endpoints and its EndpointSlice
  // where the store does not hold them.
  Status Sync();

 private:
  Status EnsureEndpoints();

  registry::Registry* registry_;
  const Clock* clock_;
  CoreResources res_;
  KubernetesServiceOptions options_;
  WorkQueue queue_;
  std::unique_ptr<WorkerPool> workers_;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_KUBERNETES_SERVICE_H_
