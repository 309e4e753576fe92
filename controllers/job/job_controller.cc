#include "controllers/job/job_controller.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>

#include "common/json_view.h"
#include "controllers/apps/object_util.h"
#include "controllers/apps/slow_start.h"
#include "controllers/controller_write.h"
#include "controllers/job/job_pods.h"
#include "controllers/job/pod_failure_policy.h"
#include "controllers/replicaset_controller.h"
#include "registry/selectors.h"

namespace kmock::controllers {

namespace {

using apps::IntAt;
using apps::NameOf;
using apps::NamespaceOf;
using apps::UidOf;

constexpr char kComponent[] = "job-controller";
constexpr char kOrphanPrefix[] = "pod:";
constexpr auto kBackoffInitial = std::chrono::seconds(10);
constexpr auto kBackoffMax = std::chrono::minutes(6);

registry::WriteOptions Write() { return ControllerWrite("job-controller"); }

bool Suspended(const json& job) {
  const json& v = ValueAt(ObjectAt(job, "spec"), "suspend");
  return v.is_boolean() && v.get<bool>();
}

const json* JobControllerRef(const json& pod) {
  const json* ref = apps::ControllerRefOf(pod);
  if (ref == nullptr || StringAt(*ref, "kind") != "Job" ||
      StringAt(*ref, "apiVersion").rfind("batch/", 0) != 0) {
    return nullptr;
  }
  return ref;
}

// The uids listed in status.uncountedTerminatedPods.<which>.
std::set<std::string> Uncounted(const json& status, const char* which) {
  std::set<std::string> out;
  for (const json& u :
       ArrayAt(ObjectAt(status, "uncountedTerminatedPods"), which)) {
    if (u.is_string()) out.insert(u.get<std::string>());
  }
  return out;
}

void SetUncounted(json* status, const std::set<std::string>& succeeded,
                  const std::set<std::string>& failed) {
  json u = json::object();
  if (!succeeded.empty()) u["succeeded"] = succeeded;
  if (!failed.empty()) u["failed"] = failed;
  (*status)["uncountedTerminatedPods"] = u;
}

int64_t Restarts(const json& pod) {
  int64_t n = 0;
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    for (const json& cs : ArrayAt(ObjectAt(pod, "status"), list)) {
      n += apps::IntAt(cs, {"restartCount"});
    }
  }
  return n;
}

// Whether the successPolicy's rule `rule` holds for `done` (completed
// indexes).
bool RuleHolds(const json& rule, const std::set<int64_t>& done) {
  const std::string& indexes = StringAt(rule, "succeededIndexes");
  const json& count = ValueAt(rule, "succeededCount");
  int64_t matched = 0;
  if (indexes.empty()) {
    matched = static_cast<int64_t>(done.size());
  } else {
    const std::set<int64_t> wanted = job::ParseIndexes(indexes);
    for (int64_t i : wanted) matched += done.count(i) ? 1 : 0;
    if (!count.is_number_integer()) {
      return matched == static_cast<int64_t>(wanted.size());
    }
  }
  return count.is_number_integer() && matched >= count.get<int64_t>();
}

}  // namespace

// What one sync learned while counting finished pods.
struct JobController::Tracking {
  int64_t newly_failed = 0;
  int64_t newly_succeeded = 0;
  std::optional<job::PolicyMatch> fail_job;
};

JobController::JobController(registry::Registry* registry, const Clock* clock,
                             const CoreResources& res, Informer* pods,
                             JobControllerOptions options)
    : registry_(registry),
      clock_(clock),
      res_(res),
      pods_(pods),
      options_(options),
      queue_(clock),
      jobs_(std::make_unique<Informer>(registry, res.jobs)),
      expectations_(clock),
      pod_routing_("Job", jobs_.get(), &queue_, &expectations_, "batch"),
      loop_(kComponent, &queue_, options.workers,
            [this](const std::string& key) { return Sync(key); }) {
  jobs_->AddIndex(kByNamespaceIndex, NamespaceIndex);
  jobs_->AddHandlers(EventHandlers{
      .on_add = [this](const json& j) { queue_.Add(KeyOf(j)); },
      .on_update = [this](const json&, const json& j) { queue_.Add(KeyOf(j)); },
      .on_delete =
          [this](const json& j) {
            expectations_.Forget(KeyOf(j));
            {
              std::lock_guard<std::mutex> l(backoff_mu_);
              backoff_.erase(UidOf(j));
            }
            queue_.Add(KeyOf(j));
          },
  });
  EventHandlers routed = pod_routing_.Handlers();
  pods_->AddHandlers(EventHandlers{
      .on_add =
          [this, routed](const json& pod) {
            FreedPodSeen(pod);
            routed.on_add(pod);
            QueueOrphanedPod(pod);
          },
      .on_update =
          [this, routed](const json& old_pod, const json& pod) {
            FreedPodSeen(pod);
            routed.on_update(old_pod, pod);
            QueueOrphanedPod(pod);
          },
      .on_delete =
          [this, routed](const json& pod) {
            if (JobControllerRef(pod) != nullptr) {
              std::lock_guard<std::mutex> l(freed_mu_);
              freed_unseen_.erase(UidOf(pod));
            }
            routed.on_delete(pod);
          },
  });
  EventSource source;
  source.component = kComponent;
  events_ = std::make_unique<EventRecorder>(registry_, clock, source,
                                            options.event_sink);
}

JobController::~JobController() { Stop(); }

void JobController::Start() { loop_.Start({jobs_.get()}); }

void JobController::Stop() { loop_.Stop(); }

void JobController::Report(const json& job, const char* type,
                           const std::string& reason,
                           const std::string& message) {
  // With a sink the write is queued; a failure is logged there.
  (void)events_->Record(job, EventRecord{type, reason, message, "", ""});
}

void JobController::FreedPodSeen(const json& pod) {
  // Only Jobs' pods were freed: every other pod event passes untouched.
  if (JobControllerRef(pod) == nullptr || job::HasTrackingFinalizer(pod)) {
    return;
  }
  std::lock_guard<std::mutex> l(freed_mu_);
  freed_unseen_.erase(UidOf(pod));
}

bool JobController::FreedButUnseen(const std::string& uid) {
  std::lock_guard<std::mutex> l(freed_mu_);
  return freed_unseen_.count(uid) > 0;
}

void JobController::QueueOrphanedPod(const json& pod) {
  if (!job::HasTrackingFinalizer(pod)) return;
  const json* ref = JobControllerRef(pod);
  if (ref != nullptr) {
    ObjectPtr owner =
        jobs_->Get(NamespaceOf(pod) + "/" + StringAt(*ref, "name"));
    if (owner && UidOf(*owner) == StringAt(*ref, "uid")) return;
  }
  queue_.Add(kOrphanPrefix + KeyOf(pod));
}

Status JobController::SyncOrphanPod(const std::string& pod_key) {
  ObjectPtr pod = pods_->Get(pod_key);
  if (!pod || !job::HasTrackingFinalizer(*pod)) return Status::Ok();
  if (const json* ref = JobControllerRef(*pod)) {
    auto owner =
        registry_->Get(*res_.jobs, NamespaceOf(*pod), StringAt(*ref, "name"));
    if (owner.ok() && UidOf(*owner) == StringAt(*ref, "uid")) {
      return Status::Ok();  // its Job's sync counts it
    }
  }
  return IgnoreRoutineWriteErrors(RemoveFinalizer(*pod));
}

Status JobController::Sync(const std::string& key) {
  if (key.rfind(kOrphanPrefix, 0) == 0) {
    return SyncOrphanPod(key.substr(sizeof(kOrphanPrefix) - 1));
  }
  KMOCK_RETURN_IF_ERROR(WaitForInformers({pods_, jobs_.get()}));
  ObjectPtr cached = jobs_->Get(key);
  if (!cached) {
    expectations_.Forget(key);
    std::lock_guard<std::mutex> l(freed_mu_);
    written_rv_.erase(key);
    return Status::Ok();
  }
  const json& job = *cached;
  {
    std::lock_guard<std::mutex> l(freed_mu_);
    auto it = written_rv_.find(key);
    if (it != written_rv_.end()) {
      const uint64_t seen = std::strtoull(
          StringAt(ObjectAt(job, "metadata"), "resourceVersion").c_str(),
          nullptr, 10);
      if (seen < it->second) return Status::Ok();
      written_rv_.erase(it);
    }
  }
  // Before the pods are listed: a pod created by the last sync that the
  // informer shows only now must not satisfy it after a list without it.
  const bool may_manage = expectations_.Satisfied(key);
  KMOCK_ASSIGN_OR_RETURN(std::vector<ObjectPtr> pods, ClaimPods(job));
  if (apps::IsBeingDeleted(job)) {
    // Its pods go with it: nothing more to count.
    for (const ObjectPtr& p : pods) {
      if (job::HasTrackingFinalizer(*p)) {
        KMOCK_RETURN_IF_ERROR(IgnoreRoutineWriteErrors(RemoveFinalizer(*p)));
      }
    }
    return Status::Ok();
  }
  const TimePoint now = clock_->Now();
  json status = ObjectAt(job, "status");
  if (!status.is_object()) status = json::object();
  const json before = status;
  Tracking t;
  std::string rv = StringAt(ObjectAt(job, "metadata"), "resourceVersion");
  // On any failure here the counts in hand are not the stored ones: stop,
  // or the pods decided on them would repeat a finished one (the Job's
  // update event, or the retry, brings the key back).
  if (Status tracked = TrackFinishedPods(job, pods, &status, &t, &rv);
      !tracked.ok()) {
    return IgnoreRoutineWriteErrors(tracked);
  }
  {
    std::lock_guard<std::mutex> l(backoff_mu_);
    Backoff& b = backoff_[UidOf(job)];
    if (t.newly_succeeded > 0) b.failures = 0;
    if (t.newly_failed > 0) {
      b.failures += t.newly_failed;
      b.last = now;
    }
  }
  if (job::IsFinished(job)) {
    if (status != before) {
      return IgnoreRoutineWriteErrors(WriteStatus(job, status, &rv));
    }
    return Status::Ok();
  }

  int64_t active = 0, ready = 0, terminating = 0, restarts = 0;
  for (const ObjectPtr& p : pods) {
    if (job::IsActive(*p)) {
      ++active;
      if (apps::IsPodReady(*p)) ++ready;
      restarts += Restarts(*p);
    } else if (job::IsTerminating(*p)) {
      ++terminating;
    }
  }
  const json& spec = ObjectAt(job, "spec");
  const int64_t succeeded = IntAt(status, {"succeeded"});
  const int64_t failed = IntAt(status, {"failed"});
  const bool indexed = job::IsIndexed(job);
  const json& completions_v = ValueAt(spec, "completions");
  const bool has_completions = completions_v.is_number_integer();
  const int64_t completions =
      has_completions ? completions_v.get<int64_t>() : 0;
  const bool suspended = Suspended(job);

  // Start (or restart after a resume) the clock of activeDeadlineSeconds.
  if (!suspended && !status.contains("startTime")) {
    status["startTime"] = FormatRfc3339(now);
  }
  // Why the Job ends, if it does.
  std::string fail_reason, fail_message, success_reason, success_message;
  if (const json* c = job::TrueCondition(job, "FailureTarget")) {
    fail_reason = StringAt(*c, "reason");
    fail_message = StringAt(*c, "message");
  } else if (const json* c = job::TrueCondition(job, "SuccessCriteriaMet")) {
    success_reason = StringAt(*c, "reason");
    success_message = StringAt(*c, "message");
  } else if (t.fail_job) {
    fail_reason = "PodFailurePolicy";
    fail_message = t.fail_job->message;
  } else if (failed +
                 (StringAt(
                      ObjectAt(spec, "template").value("spec", json::object()),
                      "restartPolicy") == "OnFailure"
                      ? restarts
                      : 0) >
             IntAt(spec, {"backoffLimit"}, 6)) {
    fail_reason = "BackoffLimitExceeded";
    fail_message = "Job has reached the specified backoff limit";
  } else if (const json& ads = ValueAt(spec, "activeDeadlineSeconds");
             ads.is_number_integer() && !suspended) {
    TimePoint start{};
    ParseRfc3339(StringAt(status, "startTime"), &start);
    const TimePoint deadline = start + std::chrono::seconds(ads.get<int64_t>());
    if (now >= deadline) {
      fail_reason = "DeadlineExceeded";
      fail_message = "Job was active longer than specified deadline";
    } else {
      queue_.AddAfter(key, deadline - now);
    }
  }
  if (fail_reason.empty() && success_reason.empty()) {
    if (indexed) {
      const std::set<int64_t> done =
          job::ParseIndexes(StringAt(status, "completedIndexes"));
      const json& rules = ArrayAt(ObjectAt(spec, "successPolicy"), "rules");
      for (size_t i = 0; i < rules.size() && success_reason.empty(); ++i) {
        if (RuleHolds(rules[i], done)) {
          success_reason = "SuccessPolicy";
          success_message = "Matched rules at index " + std::to_string(i);
        }
      }
      if (success_reason.empty() &&
          static_cast<int64_t>(done.size()) >= completions) {
        success_reason = "CompletionsReached";
        success_message = "Reached expected number of succeeded pods";
      }
    } else if (has_completions ? succeeded >= completions
                               : succeeded > 0 && active == 0) {
      success_reason = "CompletionsReached";
      success_message = "Reached expected number of succeeded pods";
    }
  }

  if (!fail_reason.empty() || !success_reason.empty()) {
    const bool failing = !fail_reason.empty();
    const std::string& reason = failing ? fail_reason : success_reason;
    const std::string& message = failing ? fail_message : success_message;
    job::SetCondition(&status, failing ? "FailureTarget" : "SuccessCriteriaMet",
                      "True", reason, message, now);
    for (const ObjectPtr& p : pods) {
      if (job::IsActive(*p)) {
        KMOCK_RETURN_IF_ERROR(IgnoreRoutineWriteErrors(DeletePod(job, *p)));
      }
    }
    if (active == 0 && terminating == 0) {
      job::SetCondition(&status, failing ? "Failed" : "Complete", "True",
                        reason, message, now);
      if (failing) {
        Report(job, "Warning", reason, message);
      } else {
        status["completionTime"] = FormatRfc3339(now);
        Report(job, "Normal", "Completed", "Job completed");
      }
    }
    active = 0;
    ready = 0;
  } else if (suspended) {
    for (const ObjectPtr& p : pods) {
      if (job::IsActive(*p)) {
        KMOCK_RETURN_IF_ERROR(IgnoreRoutineWriteErrors(DeletePod(job, *p)));
      }
    }
    if (job::SetCondition(&status, "Suspended", "True", "JobSuspended",
                          "Job suspended", now)) {
      Report(job, "Normal", "Suspended", "Job suspended");
    }
    active = 0;
    ready = 0;
  } else {
    if (job::TrueCondition(job, "Suspended") != nullptr) {
      job::SetCondition(&status, "Suspended", "False", "JobResumed",
                        "Job resumed", now);
      status["startTime"] = FormatRfc3339(now);
      Report(job, "Normal", "Resumed", "Job resumed");
    }
    if (may_manage) KMOCK_RETURN_IF_ERROR(Manage(job, pods, status));
  }
  if (active > 0) {
    status["active"] = active;
  } else {
    status.erase("active");
  }
  status["ready"] = ready;
  status["terminating"] = terminating;
  if (!status.contains("uncountedTerminatedPods")) {
    status["uncountedTerminatedPods"] = json::object();
  }
  if (status != before) {
    KMOCK_RETURN_IF_ERROR(
        IgnoreRoutineWriteErrors(WriteStatus(job, status, &rv)));
  }
  return Status::Ok();
}

Result<std::vector<ObjectPtr>> JobController::ClaimPods(const json& job) {
  auto selector = registry::LabelSelector::FromJson(
      ValueAt(ObjectAt(job, "spec"), "selector"));
  if (!selector.ok()) return selector.status();
  const std::string uid = UidOf(job);
  std::vector<ObjectPtr> out;
  for (ObjectPtr& p : pods_->ByIndex(kByControllerIndex, "uid:" + uid)) {
    if (selector->Matches(ObjectAt(ObjectAt(*p, "metadata"), "labels"))) {
      out.push_back(std::move(p));
    }
  }
  if (apps::IsBeingDeleted(job) || selector->Empty()) return out;
  for (const ObjectPtr& p :
       pods_->ByIndex(kByControllerIndex, "orphan:" + NamespaceOf(job))) {
    if (!apps::IsPodActive(*p) ||
        !selector->Matches(ObjectAt(ObjectAt(*p, "metadata"), "labels"))) {
      continue;
    }
    const std::string pod_uid = UidOf(*p);
    const json ref = apps::MakeControllerRef(job, "batch/v1", "Job");
    auto adopted = registry_->GuaranteedUpdateShared(
        *res_.pods, NamespaceOf(*p), NameOf(*p), "",
        [&](json& obj) -> Status {
          if (UidOf(obj) != pod_uid) return NotFoundError("pod was replaced");
          return apps::AddControllerRef(&obj, ref);
        },
        Write());
    if (adopted.ok()) {
      out.push_back(p);
    } else {
      KMOCK_RETURN_IF_ERROR(IgnoreRoutineWriteErrors(adopted.status()));
    }
  }
  return out;
}

Status JobController::TrackFinishedPods(const json& job,
                                        const std::vector<ObjectPtr>& pods,
                                        json* status, Tracking* t,
                                        std::string* rv) {
  std::set<std::string> succeeded = Uncounted(*status, "succeeded");
  std::set<std::string> failed = Uncounted(*status, "failed");
  const bool counts = !job::IsFinished(job) && !Suspended(job);
  std::vector<const json*> to_free;
  bool listed = false;
  for (const ObjectPtr& p : pods) {
    const json& pod = *p;
    if (!job::HasTrackingFinalizer(pod)) continue;
    const std::string uid = UidOf(pod);
    if (FreedButUnseen(uid)) continue;
    const bool done = job::IsSucceeded(pod);
    const bool lost = !done && job::IsFailed(pod, job);
    if (!done && !lost) continue;
    to_free.push_back(&pod);
    if (succeeded.count(uid) || failed.count(uid)) continue;
    if (done) {
      succeeded.insert(uid);
      listed = true;
      continue;
    }
    if (!counts && apps::IsBeingDeleted(pod)) continue;
    if (auto match = job::MatchPodFailurePolicy(job, pod)) {
      if (match->action == "Ignore") continue;
      if (match->action == "FailJob" && !t->fail_job) t->fail_job = match;
    }
    failed.insert(uid);
    listed = true;
  }
  if (to_free.empty() && succeeded.empty() && failed.empty())
    return Status::Ok();
  // First record the uids, then free the pods, then move them to the
  // counts: a crash in between neither loses nor repeats a finish.
  if (listed) {
    SetUncounted(status, succeeded, failed);
    KMOCK_RETURN_IF_ERROR(WriteStatus(job, *status, rv));
  }
  std::set<std::string> freed;
  for (const json* pod : to_free) {
    {
      std::lock_guard<std::mutex> l(freed_mu_);
      freed_unseen_.insert(UidOf(*pod));
    }
    Status st = RemoveFinalizer(*pod);
    if (st.ok() || st.code() == StatusCode::kNotFound) {
      freed.insert(UidOf(*pod));
    } else {
      {
        std::lock_guard<std::mutex> l(freed_mu_);
        freed_unseen_.erase(UidOf(*pod));
      }
      KMOCK_RETURN_IF_ERROR(IgnoreRoutineWriteErrors(st));
    }
  }
  std::set<int64_t> done_indexes =
      job::ParseIndexes(StringAt(*status, "completedIndexes"));
  const bool indexed = job::IsIndexed(job);
  const int64_t completions = IntAt(job, {"spec", "completions"});
  std::map<std::string, const json*> by_uid;
  for (const ObjectPtr& p : pods) by_uid[UidOf(*p)] = p.get();
  auto move = [&](std::set<std::string>* uids, const char* counter,
                  int64_t* newly) {
    for (auto it = uids->begin(); it != uids->end();) {
      // Counted once its pod no longer holds the finalizer: freed now, or
      // earlier by a sync whose status write did not land, or gone.
      auto pod = by_uid.find(*it);
      if (freed.count(*it) || pod == by_uid.end() ||
          !job::HasTrackingFinalizer(*pod->second) || FreedButUnseen(*it)) {
        (*status)[counter] = IntAt(*status, {counter}) + 1;
        ++*newly;
        if (indexed && std::string(counter) == "succeeded" &&
            pod != by_uid.end()) {
          auto index = job::CompletionIndex(*pod->second);
          if (index && *index < completions) done_indexes.insert(*index);
        }
        it = uids->erase(it);
      } else {
        ++it;
      }
    }
  };
  move(&succeeded, "succeeded", &t->newly_succeeded);
  move(&failed, "failed", &t->newly_failed);
  SetUncounted(status, succeeded, failed);
  if (indexed) {
    const std::string formatted = job::FormatIndexes(done_indexes);
    if (formatted.empty()) {
      status->erase("completedIndexes");
    } else {
      (*status)["completedIndexes"] = formatted;
    }
  }
  return Status::Ok();
}

Status JobController::Manage(const json& job,
                             const std::vector<ObjectPtr>& pods,
                             const json& status) {
  const json& spec = ObjectAt(job, "spec");
  const int64_t parallelism = IntAt(spec, {"parallelism"}, 1);
  const json& completions_v = ValueAt(spec, "completions");
  const bool indexed = job::IsIndexed(job);
  const int64_t succeeded = IntAt(status, {"succeeded"});
  const bool replace_failed_only =
      StringAt(spec, "podReplacementPolicy") == "Failed";
  std::vector<const json*> active;
  int64_t busy = 0;
  std::set<int64_t> running_indexes;
  for (const ObjectPtr& p : pods) {
    if (job::IsActive(*p)) {
      active.push_back(p.get());
      ++busy;
      if (auto i = job::CompletionIndex(*p)) running_indexes.insert(*i);
    } else if (replace_failed_only && job::IsTerminating(*p)) {
      ++busy;
      if (auto i = job::CompletionIndex(*p)) running_indexes.insert(*i);
    }
  }
  int64_t want = parallelism;
  std::vector<int64_t> pending;
  if (indexed) {
    const int64_t completions = completions_v.get<int64_t>();
    const std::set<int64_t> done =
        job::ParseIndexes(StringAt(status, "completedIndexes"));
    for (int64_t i = 0; i < completions; ++i) {
      if (!done.count(i) && !running_indexes.count(i)) pending.push_back(i);
    }
    want = std::min<int64_t>(parallelism,
                             completions - static_cast<int64_t>(done.size()));
  } else if (completions_v.is_number_integer()) {
    want = std::min<int64_t>(parallelism,
                             completions_v.get<int64_t>() - succeeded);
  } else if (succeeded > 0) {
    want = static_cast<int64_t>(active.size());
  }
  want = std::max<int64_t>(want, 0);
  const std::string key = KeyOf(job);
  if (static_cast<int64_t>(active.size()) > want) {
    // Surplus: the ones not yet running go first, then the newest.
    std::vector<const json*> order = active;
    std::stable_sort(order.begin(), order.end(),
                     [](const json* a, const json* b) {
                       const bool ra = apps::IsPodReady(*a);
                       const bool rb = apps::IsPodReady(*b);
                       if (ra != rb) return !ra;
                       return apps::CreationTime(*a) > apps::CreationTime(*b);
                     });
    order.resize(
        static_cast<size_t>(static_cast<int64_t>(active.size()) - want));
    std::vector<std::string> keys;
    for (const json* p : order) keys.push_back(KeyOf(*p));
    expectations_.ExpectDeletions(key, keys);
    for (const json* p : order) {
      Status st = DeletePod(job, *p);
      if (!st.ok()) {
        expectations_.DeletionObserved(key, KeyOf(*p));
        KMOCK_RETURN_IF_ERROR(IgnoreRoutineWriteErrors(st));
      }
    }
    return Status::Ok();
  }
  int64_t missing = std::min<int64_t>(want - busy, options_.burst_replicas);
  if (indexed) missing = std::min<int64_t>(missing, pending.size());
  if (missing <= 0) return Status::Ok();
  // The back-off after failures since the last success.
  {
    std::lock_guard<std::mutex> l(backoff_mu_);
    const Backoff& b = backoff_[UidOf(job)];
    if (b.failures > 0) {
      std::chrono::nanoseconds wait = kBackoffInitial;
      for (int64_t i = 1; i < b.failures && wait < kBackoffMax; ++i) wait *= 2;
      wait = std::min<std::chrono::nanoseconds>(wait, kBackoffMax);
      const TimePoint at = b.last + wait;
      const TimePoint now = clock_->Now();
      if (now < at) {
        queue_.AddAfter(key, at - now);
        return Status::Ok();
      }
    }
  }
  expectations_.ExpectCreations(key, static_cast<int>(missing));
  const json owner = apps::MakeControllerRef(job, "batch/v1", "Job");
  apps::SlowStartResult made =
      apps::SlowStart(missing, [&](int64_t i) -> Status {
        std::optional<int64_t> index;
        if (indexed) index = pending[static_cast<size_t>(i)];
        json pod = job::NewJobPod(job, index, owner);
        auto r = registry_->Create(*res_.pods, NamespaceOf(job), pod, Write());
        if (r.ok()) {
          Report(job, "Normal", "SuccessfulCreate",
                 "Created pod: " + NameOf(r->object));
          return Status::Ok();
        }
        expectations_.CreationObserved(key);
        if (apps::IsNamespaceTerminating(r.status())) return Status::Ok();
        Report(job, "Warning", "FailedCreate",
               "Error creating: " + r.status().message());
        return r.status();
      });
  for (int64_t i = made.attempted; i < missing; ++i) {
    expectations_.CreationObserved(key);
  }
  return made.first_error;
}

Status JobController::RemoveFinalizer(const json& pod) {
  const std::string uid = UidOf(pod);
  auto r = registry_->GuaranteedUpdateShared(
      *res_.pods, NamespaceOf(pod), NameOf(pod), "",
      [&](json& obj) -> Status {
        if (UidOf(obj) != uid) return NotFoundError("pod was replaced");
        json& md = obj["metadata"];
        json kept = json::array();
        for (const json& f : ArrayAt(md, "finalizers")) {
          if (!(f.is_string() &&
                f.get<std::string>() == job::kTrackingFinalizer)) {
            kept.push_back(f);
          }
        }
        if (kept.empty()) {
          md.erase("finalizers");
        } else {
          md["finalizers"] = kept;
        }
        return Status::Ok();
      },
      Write());
  return r.ok() ? Status::Ok() : r.status();
}

Status JobController::DeletePod(const json& job, const json& pod) {
  registry::DeleteOptions del;
  del.precondition_uid = UidOf(pod);
  del.user = Write().user;
  auto r = registry_->Delete(*res_.pods, NamespaceOf(pod), NameOf(pod), del);
  if (!r.ok()) return r.status();
  Report(job, "Normal", "SuccessfulDelete", "Deleted pod: " + NameOf(pod));
  return Status::Ok();
}

Status JobController::WriteStatus(const json& job, const json& status,
                                  std::string* rv) {
  const std::string uid = UidOf(job);
  auto r = registry_->GuaranteedUpdateShared(
      *res_.jobs, NamespaceOf(job), NameOf(job), "status",
      [&](json& obj) -> Status {
        if (UidOf(obj) != uid) return NotFoundError("job was replaced");
        // Counts decided on an older copy would undo newer ones.
        KMOCK_RETURN_IF_ERROR(
            apps::RequireUnchangedSince(obj, *rv, "jobs.batch"));
        obj["status"] = status;
        return Status::Ok();
      },
      Write());
  if (!r.ok()) return r.status();
  *rv = StringAt(ObjectAt((*r)->value(), "metadata"), "resourceVersion");
  std::lock_guard<std::mutex> l(freed_mu_);
  written_rv_[KeyOf(job)] = std::strtoull(rv->c_str(), nullptr, 10);
  return Status::Ok();
}

}  // namespace kmock::controllers
