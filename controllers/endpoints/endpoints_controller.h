// The endpoint and endpointslice controllers of kube-controller-manager in
// one loop: for every Service with a selector it keeps the Endpoints of the
// same name and the Service's EndpointSlices (labelled with the service
// name and managed-by endpointslice-controller.k8s.io, owned by the
// Service) in step with the pods the selector picks (desired_endpoints.h
// says what they hold). A Service without a selector keeps whatever
// Endpoints its user writes, and loses the slices this controller made; a
// deleted Service loses its Endpoints (its slices go with the garbage
// collector, through their owner reference).
//
// Triggers: a Service added, changed or deleted; a pod added, changed or
// deleted whose old or new labels a Service of its namespace selects; an
// Endpoints deleted; a managed slice added, changed or deleted. A sync
// writes only what differs, and waits (requeued) while the slice cache is
// behind the controller's own writes (slice_tracker.h).
//
// Thread safety: construct before the shared pod and node informers start;
// Start/Stop from one thread (Stop is idempotent and runs on destruction);
// Sync from any thread.
#ifndef KMOCK_CONTROLLERS_ENDPOINTS_ENDPOINTS_CONTROLLER_H_
#define KMOCK_CONTROLLERS_ENDPOINTS_ENDPOINTS_CONTROLLER_H_

#include <memory>
#include <string>

#include "common/clock.h"
#include "controllers/control_loop.h"
#include "controllers/endpoints/slice_tracker.h"
#include "controllers/informer.h"
#include "controllers/resources_lookup.h"
#include "controllers/work_queue.h"
#include "registry/registry.h"

namespace kmock::controllers {

struct EndpointsControllerOptions {
  int workers = 2;
  // kube-controller-manager's --max-endpoints-per-slice.
  size_t max_endpoints_per_slice = 100;
};

class EndpointsController {
 public:
  // REQUIRES: res has services, endpoints and endpointslices; pods has
  // kByNamespaceIndex; neither informer started yet.
  EndpointsController(registry::Registry* registry, const Clock* clock,
                      const CoreResources& res, Informer* pods, Informer* nodes,
                      EndpointsControllerOptions options = {});
  ~EndpointsController();
  EndpointsController(const EndpointsController&) = delete;
  EndpointsController& operator=(const EndpointsController&) = delete;

  // Starts this controller's own informers and workers.
  void Start();
  void Stop();

  // Brings one Service's ("ns/name") Endpoints and slices up to date.
  Status Sync(const std::string& service_key);

 private:
  void QueueServicesSelecting(const json& pod);
  Status SyncEndpoints(const json& service, const std::vector<ObjectPtr>& pods);
  Status SyncSlices(const json& service, const std::vector<ObjectPtr>& pods);
  Status DeleteSlices(const std::string& service_key);

  registry::Registry* registry_;
  const Clock* clock_;
  CoreResources res_;
  Informer* pods_;
  Informer* nodes_;
  EndpointsControllerOptions options_;
  WorkQueue queue_;
  std::unique_ptr<Informer> services_;
  std::unique_ptr<Informer> endpoints_;
  std::unique_ptr<Informer> slices_;
  endpoints::SliceTracker tracker_;
  ControlLoop loop_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_ENDPOINTS_ENDPOINTS_CONTROLLER_H_
