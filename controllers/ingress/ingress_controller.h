// The ingress controllers a cluster file declares (cluster.h,
// ingressControllers), as an installed ingress-nginx behaves seen through
// the API: at start-up each one's namespace, ServiceAccount, IngressClass
// (the cluster's default when declared so), LoadBalancer Service and
// Deployment "<namespace>-controller" are created where missing (as its
// install manifest would have made them; the cloud's load-balancer
// controller gives the Service its address, the Deployment controller its
// pod). Then every Ingress of its class (spec.ingressClassName, or the
// older kubernetes.io/ingress.class annotation) gets the Service's address
// in status.loadBalancer.ingress (the controller's --publish-service),
// which `kubectl get ingress` shows as ADDRESS, and the event "Scheduled
// for sync" from nginx-ingress-controller. Ingresses of other classes, or
// of none, are left alone, as a real controller leaves them. Without a
// declared controller nothing runs, as on a kubeadm cluster.
//
// Thread safety: Start/Stop from one thread (Stop is idempotent and runs on
// destruction); Sync from the loop's worker.
#ifndef KMOCK_CONTROLLERS_INGRESS_INGRESS_CONTROLLER_H_
#define KMOCK_CONTROLLERS_INGRESS_INGRESS_CONTROLLER_H_

#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/clock.h"
#include "controllers/cluster.h"
#include "controllers/control_loop.h"
#include "controllers/event_recorder.h"
#include "controllers/informer.h"
#include "controllers/work_queue.h"
#include "registry/registry.h"

namespace kmock::controllers {

// What installing the controller creates, in order (pure): Namespace,
// ServiceAccount, IngressClass, Service, Deployment, each with its
// apiVersion and kind.
std::vector<nlohmann::json> IngressControllerObjects(
    const IngressControllerSpec& spec);

// The class an Ingress asks for: spec.ingressClassName, else the
// kubernetes.io/ingress.class annotation, else "".
std::string IngressClassOf(const nlohmann::json& ingress);

// The Ingress status addresses for a published Service (its load
// balancer's ip and hostname entries; empty while it has none).
nlohmann::json IngressAddresses(const nlohmann::json& service);

struct IngressControllerOptions {
  std::vector<IngressControllerSpec> controllers;
  EventSink* event_sink = nullptr;
};

class IngressController {
 public:
  IngressController(registry::Registry* registry, const Clock* clock,
                    IngressControllerOptions options);
  ~IngressController();
  IngressController(const IngressController&) = delete;
  IngressController& operator=(const IngressController&) = delete;

  void Start();
  void Stop();

  // An Ingress ("ns/name"), or kInstallKey.
  Status Sync(const std::string& key);
  static constexpr char kInstallKey[] = "#install";

 private:
  // Creates what is missing of each controller's install.
  Status Install();
  const IngressControllerSpec* ControllerFor(const nlohmann::json& ingress);
  // The key of a controller's published Service ("ns/name").
  static std::string PublishedKey(const IngressControllerSpec& spec);
  // Queues every Ingress of the class whose Service changed.
  void OnServiceChange(const nlohmann::json& service);

  registry::Registry* registry_;
  IngressControllerOptions options_;
  const api::ResourceInfo* ingresses_res_;
  std::unique_ptr<Informer> ingresses_;
  std::unique_ptr<Informer> services_;
  std::unique_ptr<EventRecorder> events_;
  // The generation each Ingress had when its sync event was recorded.
  std::mutex mu_;
  std::map<std::string, int64_t> announced_;
  WorkQueue queue_;
  ControlLoop loop_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_INGRESS_INGRESS_CONTROLLER_H_
