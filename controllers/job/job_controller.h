// kube-controller-manager's Job controller: runs each Job's pods
// (job/job_pods.h) up to parallelism until completions succeed (for an
// Indexed Job, one success per index), waiting between retries as upstream
// does (10 s after the first failure since the last success, doubling, at
// most 6 min); counts finished pods through status.uncountedTerminatedPods
// before it removes their batch.kubernetes.io/job-tracking finalizer, so no
// finish is lost or counted twice; ends a Job with the conditions of 1.33
// (SuccessCriteriaMet then Complete; FailureTarget then Failed for
// backoffLimit, activeDeadlineSeconds or a podFailurePolicy FailJob rule),
// removing its remaining pods first; suspends and resumes (Suspended
// condition, startTime reset). Pods whose Job is gone lose the finalizer.
// Events: SuccessfulCreate, SuccessfulDelete, FailedCreate, Completed,
// BackoffLimitExceeded, DeadlineExceeded, PodFailurePolicy, Suspended,
// Resumed (source job-controller).
//
// Thread safety: construct before the shared pod informer starts;
// Start/Stop from one thread (Stop is idempotent and runs on destruction);
// Sync from any thread.
#ifndef KMOCK_CONTROLLERS_JOB_JOB_CONTROLLER_H_
#define KMOCK_CONTROLLERS_JOB_JOB_CONTROLLER_H_

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "controllers/apps/pod_owner_routing.h"
#include "controllers/control_loop.h"
#include "controllers/event_recorder.h"
#include "controllers/informer.h"
#include "controllers/replicaset/expectations.h"
#include "controllers/resources_lookup.h"
#include "controllers/work_queue.h"
#include "registry/registry.h"

namespace kmock::controllers {

struct JobControllerOptions {
  int workers = 2;
  // Most pods created or deleted in one sync.
  int burst_replicas = 500;
  EventSink* event_sink = nullptr;
};

class JobController {
 public:
  // REQUIRES: res has jobs; `pods` is the shared pod informer with
  // kByNamespaceIndex and kByControllerIndex, not started yet.
  JobController(registry::Registry* registry, const Clock* clock,
                const CoreResources& res, Informer* pods,
                JobControllerOptions options = {});
  ~JobController();
  JobController(const JobController&) = delete;
  JobController& operator=(const JobController&) = delete;

  void Start();
  void Stop();

  // Syncs the Job with this key ("ns/name"), or, for "pod:ns/name", frees
  // a pod whose Job is gone of its tracking finalizer.
  Status Sync(const std::string& key);

 private:
  struct Tracking;
  void QueueOrphanedPod(const json& pod);
  // The pod informer shows the pod without our finalizer (or gone).
  void FreedPodSeen(const json& pod);
  bool FreedButUnseen(const std::string& uid);
  Status SyncOrphanPod(const std::string& pod_key);
  Result<std::vector<ObjectPtr>> ClaimPods(const json& job);
  // Counts finished pods and frees them of the finalizer; updates *status.
  // *rv: the resourceVersion the status was read at, then written at.
  Status TrackFinishedPods(const json& job, const std::vector<ObjectPtr>& pods,
                           json* status, Tracking* t, std::string* rv);
  Status RemoveFinalizer(const json& pod);
  Status DeletePod(const json& job, const json& pod);
  // Creates or deletes pods toward the wanted number of active ones.
  Status Manage(const json& job, const std::vector<ObjectPtr>& pods,
                const json& status);
  // Conflict unless the stored Job is still at *rv; then *rv is the new one.
  Status WriteStatus(const json& job, const json& status, std::string* rv);
  void Report(const json& job, const char* type, const std::string& reason,
              const std::string& message);

  registry::Registry* registry_;
  const Clock* clock_;
  CoreResources res_;
  Informer* pods_;
  JobControllerOptions options_;
  WorkQueue queue_;
  std::unique_ptr<Informer> jobs_;
  replicaset::Expectations expectations_;
  apps::PodOwnerRouting pod_routing_;
  std::unique_ptr<EventRecorder> events_;
  // Failures since the last success, and when the last was counted, per
  // Job uid: the back-off before the next pod.
  struct Backoff {
    int64_t failures = 0;
    TimePoint last{};
  };
  std::mutex backoff_mu_;
  std::map<std::string, Backoff> backoff_;
  // Uids of pods whose finalizer this controller removed and whose update
  // the pod informer has not shown yet: a sync skips them, or a stale copy
  // would be counted again.
  std::mutex freed_mu_;
  std::set<std::string> freed_unseen_;
  // The resourceVersion of each Job's last status write by this controller:
  // a sync waits until the Job informer has caught up with it (its update
  // event brings the key back), or it would act on counts already changed.
  std::map<std::string, uint64_t> written_rv_;
  ControlLoop loop_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_JOB_JOB_CONTROLLER_H_
