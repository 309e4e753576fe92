// The service controller of the cloud-controller-manager, for the
// cluster's AWS-style cloud: a Service of type LoadBalancer gets a load
// balancer, which here is only its address: status.loadBalancer.ingress
// becomes one hostname, "a<the Service's uid without dashes, 31
// characters>-<ten digits>.<region>.elb.amazonaws.com", as a classic ELB's
// is, with the events EnsuringLoadBalancer and EnsuredLoadBalancer; a
// Service that stops being a LoadBalancer loses the address (events
// DeletingLoadBalancer, DeletedLoadBalancer). Level-triggered on the
// Services informer.
//
// Thread safety: Start/Stop from one thread (Stop is idempotent and runs on
// destruction); Sync from any thread.
#ifndef KMOCK_CONTROLLERS_CLOUD_LOAD_BALANCER_CONTROLLER_H_
#define KMOCK_CONTROLLERS_CLOUD_LOAD_BALANCER_CONTROLLER_H_

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

struct LoadBalancerControllerOptions {
  std::string region = "us-east-1";
  // The node the cloud-controller-manager runs on, for its events.
  std::string host;
  EventSink* event_sink = nullptr;
};

// The hostname a Service's load balancer gets (pure; `digits` are the ten
// digits after the name).
std::string LoadBalancerHostname(const std::string& service_uid,
                                 const std::string& digits,
                                 const std::string& region);

class LoadBalancerController {
 public:
  LoadBalancerController(registry::Registry* registry, const Clock* clock,
                         Rng* rng, const CoreResources& res,
                         LoadBalancerControllerOptions options = {});
  ~LoadBalancerController();
  LoadBalancerController(const LoadBalancerController&) = delete;
  LoadBalancerController& operator=(const LoadBalancerController&) = delete;

  void Start();
  void Stop();

  // One Service ("ns/name").
  Status Sync(const std::string& key);

 private:
  registry::Registry* registry_;
  Rng* rng_;
  CoreResources res_;
  LoadBalancerControllerOptions options_;
  WorkQueue queue_;
  std::unique_ptr<Informer> services_;
  std::unique_ptr<EventRecorder> events_;
  ControlLoop loop_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_CLOUD_LOAD_BALANCER_CONTROLLER_H_
