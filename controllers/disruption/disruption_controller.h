// kube-controller-manager's disruption controller: keeps every
// PodDisruptionBudget's status (expected, desired and healthy pods,
// disruptions allowed, the DisruptionAllowed condition) in step with the
// pods it selects, which pods/eviction (registry/eviction.h) spends. For
// maxUnavailable and percentage budgets the expected count is the scale of
// the pods' controllers (Deployment, ReplicaSet, StatefulSet,
// ReplicationController); a pod without one makes the sync fail safe.
//
// Thread safety: construct before the shared pod informer starts;
// Start/Stop from one thread (Stop is idempotent and runs on destruction);
// Sync from any thread.
#ifndef KMOCK_CONTROLLERS_DISRUPTION_DISRUPTION_CONTROLLER_H_
#define KMOCK_CONTROLLERS_DISRUPTION_DISRUPTION_CONTROLLER_H_

#include <memory>
#include <string>

#include "common/clock.h"
#include "controllers/control_loop.h"
#include "controllers/event_recorder.h"
#include "controllers/informer.h"
#include "controllers/resources_lookup.h"
#include "controllers/work_queue.h"
#include "registry/registry.h"

namespace kmock::controllers {

struct DisruptionControllerOptions {
  EventSink* event_sink = nullptr;
};

class DisruptionController {
 public:
  // `pods` is the shared pod informer with the namespace index (not
  // started yet).
  DisruptionController(registry::Registry* registry, const Clock* clock,
                       const CoreResources& res, Informer* pods,
                       DisruptionControllerOptions options = {});
  ~DisruptionController();
  DisruptionController(const DisruptionController&) = delete;
  DisruptionController& operator=(const DisruptionController&) = delete;

  void Start();
  void Stop();

  // Brings one budget ("ns/name") up to date.
  Status Sync(const std::string& key);

 private:
  void QueueBudgetsSelecting(const json& pod);
  // Records an event about the budget.
  void Report(const json& pdb, const char* type, const std::string& reason,
              const std::string& message);
  // The summed scale of the pods' controllers, or why it cannot be known
  // (the message kube-controller-manager gives, with the event reason).
  struct Scale {
    int64_t total = 0;
    std::string error;
    std::string reason;
  };
  Scale ControllerScale(const std::vector<const json*>& pods);

  registry::Registry* registry_;
  const Clock* clock_;
  CoreResources res_;
  Informer* pods_;
  WorkQueue queue_;
  std::unique_ptr<Informer> budgets_;
  std::unique_ptr<EventRecorder> events_;
  ControlLoop loop_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_DISRUPTION_DISRUPTION_CONTROLLER_H_
