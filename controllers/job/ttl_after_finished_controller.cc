#include "controllers/job/ttl_after_finished_controller.h"

#include "common/json_view.h"
#include "controllers/apps/object_util.h"
#include "controllers/controller_write.h"
#include "controllers/job/job_pods.h"

namespace kmock::controllers {

namespace {

// When the Job's TTL runs out; nullopt when it has none or is not finished.
std::optional<TimePoint> ExpiresAt(const json& job) {
  const json& ttl = ValueAt(ObjectAt(job, "spec"), "ttlSecondsAfterFinished");
  if (!ttl.is_number_integer() || apps::IsBeingDeleted(job)) {
    return std::nullopt;
  }
  const json* finished = job::TrueCondition(job, "Complete");
  if (finished == nullptr) finished = job::TrueCondition(job, "Failed");
  if (finished == nullptr) return std::nullopt;
  TimePoint at{};
  if (!ParseRfc3339(StringAt(*finished, "lastTransitionTime"), &at)) {
    return std::nullopt;
  }
  return at + std::chrono::seconds(ttl.get<int64_t>());
}

}  // namespace

TtlAfterFinishedController::TtlAfterFinishedController(
    registry::Registry* registry, const Clock* clock, const CoreResources& res)
    : registry_(registry),
      clock_(clock),
      res_(res),
      queue_(clock),
      jobs_(std::make_unique<Informer>(registry, res.jobs)),
      loop_("ttl-after-finished-controller", &queue_, 1,
            [this](const std::string& key) { return Sync(key); }) {
  jobs_->AddHandlers(EventHandlers{
      .on_add = [this](const json& j) { Consider(j); },
      .on_update = [this](const json&, const json& j) { Consider(j); },
      .on_delete = nullptr,
  });
}

TtlAfterFinishedController::~TtlAfterFinishedController() { Stop(); }

void TtlAfterFinishedController::Start() { loop_.Start({jobs_.get()}); }

void TtlAfterFinishedController::Stop() { loop_.Stop(); }

void TtlAfterFinishedController::Consider(const json& job) {
  if (ExpiresAt(job)) queue_.Add(KeyOf(job));
}

Status TtlAfterFinishedController::Sync(const std::string& key) {
  ObjectPtr cached = jobs_->Get(key);
  if (!cached) return Status::Ok();
  auto expires = ExpiresAt(*cached);
  if (!expires) return Status::Ok();
  const TimePoint now = clock_->Now();
  if (now < *expires) {
    queue_.AddAfter(key, *expires - now);
    return Status::Ok();
  }
  // The cache may be behind: decide on the stored Job.
  auto fresh = registry_->Get(*res_.jobs, apps::NamespaceOf(*cached),
                              apps::NameOf(*cached));
  if (!fresh.ok()) return IgnoreRoutineWriteErrors(fresh.status());
  expires = ExpiresAt(*fresh);
  if (!expires || now < *expires) {
    if (expires) queue_.AddAfter(key, *expires - now);
    return Status::Ok();
  }
  registry::DeleteOptions del;
  del.precondition_uid = apps::UidOf(*fresh);
  del.precondition_resource_version =
      StringAt(ObjectAt(*fresh, "metadata"), "resourceVersion");
  del.propagation_policy = "Foreground";
  del.user = ControllerWrite("ttl-after-finished-controller").user;
  auto r = registry_->Delete(*res_.jobs, apps::NamespaceOf(*fresh),
                             apps::NameOf(*fresh), del);
  return r.ok() ? Status::Ok() : IgnoreRoutineWriteErrors(r.status());
}

}  // namespace kmock::controllers
