// kube-controller-manager's TTL-after-finished controller: a finished Job
// (Complete or Failed) with spec.ttlSecondsAfterFinished is deleted, with
// its pods in the foreground, that many seconds after the condition's
// lastTransitionTime, on the injected clock.
//
// Thread safety: Start/Stop from one thread (Stop is idempotent and runs on
// destruction); Sync from any thread.
#ifndef KMOCK_CONTROLLERS_JOB_TTL_AFTER_FINISHED_CONTROLLER_H_
#define KMOCK_CONTROLLERS_JOB_TTL_AFTER_FINISHED_CONTROLLER_H_

#include <memory>
#include <string>

#include "common/clock.h"
#include "controllers/control_loop.h"
#include "controllers/informer.h"
#include "controllers/resources_lookup.h"
#include "controllers/work_queue.h"
#include "registry/registry.h"

namespace kmock::controllers {

class TtlAfterFinishedController {
 public:
  // REQUIRES: res has jobs.
  TtlAfterFinishedController(registry::Registry* registry, const Clock* clock,
                             const CoreResources& res);
  ~TtlAfterFinishedController();
  TtlAfterFinishedController(const TtlAfterFinishedController&) = delete;
  TtlAfterFinishedController& operator=(const TtlAfterFinishedController&) =
      delete;

  void Start();
  void Stop();
  Status Sync(const std::string& key);

 private:
  void Consider(const json& job);

  registry::Registry* registry_;
  const Clock* clock_;
  CoreResources res_;
  WorkQueue queue_;
  std::unique_ptr<Informer> jobs_;
  ControlLoop loop_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_JOB_TTL_AFTER_FINISHED_CONTROLLER_H_
