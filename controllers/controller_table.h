// The table of kube-controller-manager's (and the API server's and the
// cloud's) control loops that ControllerManager runs beside its core (the
// shared informers, scheduler, kubelets and heartbeats): one entry per
// controller with its name and how it is made from what the core shares.
// ControllerManager makes every entry that applies before the shared
// informers start (so that handlers are added in time), starts them in
// table order and stops them in reverse. Adding a controller is an entry
// here; nothing else in ControllerManager changes.
//
// Thread safety: the table is immutable; Controller::Start/Stop are called
// from ControllerManager's thread only.
#ifndef KMOCK_CONTROLLERS_CONTROLLER_TABLE_H_
#define KMOCK_CONTROLLERS_CONTROLLER_TABLE_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/rng.h"
#include "controllers/cluster.h"
#include "controllers/event_sink.h"
#include "controllers/informer.h"
#include "controllers/resources_lookup.h"
#include "registry/registry.h"

namespace kmock::controllers {

struct ControllerManagerOptions;

// A running control loop as ControllerManager sees it.
class Controller {
 public:
  virtual ~Controller() = default;
  virtual void Start() = 0;
  // Joins the loop's threads; idempotent.
  virtual void Stop() = 0;
};

// Any class with Start() and Stop() as a Controller.
template <typename T>
class OwnedController final : public Controller {
 public:
  explicit OwnedController(std::unique_ptr<T> loop) : loop_(std::move(loop)) {}
  void Start() override { loop_->Start(); }
  void Stop() override { loop_->Stop(); }

 private:
  std::unique_ptr<T> loop_;
};

template <typename T>
std::unique_ptr<Controller> Own(std::unique_ptr<T> loop) {
  return std::make_unique<OwnedController<T>>(std::move(loop));
}

// What the core shares with the controllers it makes. The informers are
// not started yet when an entry is made; null where the catalog does not
// serve the resource.
struct ControllerContext {
  registry::Registry* registry;
  const Clock* clock;
  Rng* rng;
  const CoreResources& res;
  const ClusterSpec& cluster;
  const ControllerManagerOptions& options;
  EventSink* event_sink;  // null: components write their events themselves
  Informer* pods;
  Informer* nodes;
  Informer* claims;
  Informer* volumes;  // persistentvolumes
  Informer* replicasets;
  Informer* deployments;
  // True once the cluster's system pods run (ControllerManager::
  // ClusterReady) and the API server serves (MarkServing, where main
  // asks for it); for loops that should not compete with the start-up.
  std::function<bool()> cluster_ready;
};

struct ControllerEntry {
  const char* name;
  // Null when the controller is switched off or the catalog lacks what it
  // needs; an error stops the start-up.
  Result<std::unique_ptr<Controller>> (*make)(const ControllerContext& ctx);
};

// In start order.
const std::vector<ControllerEntry>& ControllerTable();

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_CONTROLLER_TABLE_H_
