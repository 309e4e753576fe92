#include "controllers/disruption/disruption_controller.h"

#include <map>

#include "common/json_view.h"
#include "controllers/apps/object_util.h"
#include "controllers/controller_write.h"
#include "controllers/disruption/budget_status.h"
#include "controllers/replicaset_controller.h"
#include "registry/selectors.h"

namespace kmock::controllers {

using nlohmann::json;

namespace {

bool Selects(const json& pdb, const json& pod) {
  Result<registry::LabelSelector> selector = registry::LabelSelector::FromJson(
      ValueAt(ObjectAt(pdb, "spec"), "selector"));
  return selector.ok() &&
         selector->Matches(ObjectAt(ObjectAt(pod, "metadata"), "labels"));
}

}  // namespace

DisruptionController::DisruptionController(registry::Registry* registry,
                                           const Clock* clock,
                                           const CoreResources& res,
                                           Informer* pods,
                                           DisruptionControllerOptions options)
    : registry_(registry),
      clock_(clock),
      res_(res),
      pods_(pods),
      queue_(clock),
      loop_("disruption", &queue_, 1,
            [this](const std::string& key) { return Sync(key); }) {
  budgets_ = std::make_unique<Informer>(registry_, res_.poddisruptionbudgets);
  budgets_->AddIndex(kByNamespaceIndex, NamespaceIndex);
  auto queue_budget = [this](const json& pdb) { queue_.Add(KeyOf(pdb)); };
  budgets_->AddHandlers(
      {queue_budget,
       [queue_budget](const json&, const json& pdb) { queue_budget(pdb); },
       nullptr});
  pods_->AddHandlers({[this](const json& pod) { QueueBudgetsSelecting(pod); },
                      [this](const json& old_pod, const json& pod) {
                        QueueBudgetsSelecting(old_pod);
                        QueueBudgetsSelecting(pod);
                      },
                      [this](const json& pod) { QueueBudgetsSelecting(pod); }});
  EventSource source;
  source.component = "controllermanager";
  events_ = std::make_unique<EventRecorder>(registry_, clock, source,
                                            options.event_sink);
}

DisruptionController::~DisruptionController() { Stop(); }

void DisruptionController::Start() { loop_.Start({budgets_.get()}); }

void DisruptionController::Stop() { loop_.Stop(); }

void DisruptionController::QueueBudgetsSelecting(const json& pod) {
  for (const ObjectPtr& pdb :
       budgets_->ByIndex(kByNamespaceIndex, apps::NamespaceOf(pod))) {
    if (Selects(*pdb, pod)) queue_.Add(KeyOf(*pdb));
  }
}

void DisruptionController::Report(const json& pdb, const char* type,
                                  const std::string& reason,
                                  const std::string& message) {
  EventRecord rec;
  rec.type = type;
  rec.reason = reason;
  rec.message = message;
  // With a sink the write is queued; a failure is logged there.
  (void)events_->Record(pdb, rec);
}

DisruptionController::Scale DisruptionController::ControllerScale(
    const std::vector<const json*>& pods) {
  Scale scale;
  std::map<std::string, int64_t> by_uid;
  auto replicas_of = [this](const api::ResourceInfo* res, const std::string& ns,
                            const json& ref) -> std::optional<json> {
    if (res == nullptr) return std::nullopt;
    auto got = registry_->Get(*res, ns, StringAt(ref, "name"));
    if (!got.ok() || apps::UidOf(*got) != StringAt(ref, "uid")) {
      return std::nullopt;
    }
    return *got;
  };
  for (const json* pod : pods) {
    const json* ref = apps::ControllerRefOf(*pod);
    const std::string name = apps::NameOf(*pod);
    if (ref == nullptr) {
      scale.error = "found no controller ref for pod \"" + name + "\"";
      scale.reason = "NoControllerRef";
      return scale;
    }
    if (by_uid.count(StringAt(*ref, "uid"))) continue;
    const std::string ns = apps::NamespaceOf(*pod);
    const std::string& kind = StringAt(*ref, "kind");
    std::optional<json> owner;
    if (kind == "ReplicaSet") {
      owner = replicas_of(res_.replicasets, ns, *ref);
      // A Deployment's ReplicaSet counts as the Deployment.
      if (owner) {
        const json* up = apps::ControllerRefOf(*owner);
        if (up != nullptr && StringAt(*up, "kind") == "Deployment") {
          owner = replicas_of(res_.deployments, ns, *up);
        }
      }
    } else if (kind == "StatefulSet") {
      owner = replicas_of(res_.statefulsets, ns, *ref);
    } else if (kind == "ReplicationController") {
      owner = replicas_of(res_.replicationcontrollers, ns, *ref);
    }
    if (!owner) {
      scale.error = "found no controllers for pod \"" + name + "\"";
      scale.reason = "NoControllers";
      return scale;
    }
    by_uid[apps::UidOf(*owner)] = apps::IntAt(*owner, {"spec", "replicas"}, 1);
    // The ReplicaSet's own uid too, so its other pods are not looked up.
    by_uid.emplace(StringAt(*ref, "uid"), 0);
  }
  for (const auto& [uid, replicas] : by_uid) scale.total += replicas;
  return scale;
}

Status DisruptionController::Sync(const std::string& key) {
  KMOCK_RETURN_IF_ERROR(WaitForInformers({budgets_.get(), pods_}));
  ObjectPtr pdb = budgets_->Get(key);
  if (pdb == nullptr) return Status::Ok();
  std::string ns, name;
  SplitKey(key, &ns, &name);
  std::vector<ObjectPtr> held;  // keeps the pods alive while pointed at
  std::vector<const json*> pods;
  for (ObjectPtr& pod : pods_->ByIndex(kByNamespaceIndex, ns)) {
    if (!Selects(*pdb, *pod)) continue;
    pods.push_back(pod.get());
    held.push_back(std::move(pod));
  }
  if (pods.empty()) {
    Report(*pdb, "Normal", "NoPods", "No matching pods found");
  }
  const TimePoint now = clock_->Now();
  std::string failure;
  Scale scale;
  if (disruption::NeedsControllerScale(ObjectAt(*pdb, "spec"))) {
    scale = ControllerScale(pods);
    if (!scale.error.empty()) {
      Report(*pdb, "Warning", scale.reason, scale.error);
      Report(*pdb, "Warning", "CalculateExpectedPodCountFailed",
             "Failed to calculate the number of expected pods: " + scale.error);
      failure = scale.error;
    }
  }
  std::optional<disruption::BudgetCounts> counts =
      disruption::CountBudget(*pdb, pods, scale.total, now);
  if (!counts && failure.empty()) {
    failure = "invalid minAvailable or maxUnavailable";
  }
  std::optional<TimePoint> next_expiry;
  json pending = disruption::PendingDisruptions(*pdb, pods, now, &next_expiry);
  json status = disruption::BudgetStatus(
      *pdb, counts.value_or(disruption::BudgetCounts{}), std::move(pending),
      now, failure);
  // An eviction that lapses gives its pod back to the healthy count then.
  if (next_expiry) queue_.AddAfter(key, *next_expiry - now);
  if (ObjectAt(*pdb, "status") == status) return Status::Ok();
  json updated = *pdb;
  updated["status"] = std::move(status);
  auto written = registry_->Update(*res_.poddisruptionbudgets, ns, name,
                                   "status", std::move(updated),
                                   ControllerWrite("disruption-controller"));
  // Changed meanwhile (an eviction spent a disruption): its own event
  // brings it back.
  return written.ok() ? Status::Ok()
                      : IgnoreRoutineWriteErrors(written.status());
}

}  // namespace kmock::controllers
