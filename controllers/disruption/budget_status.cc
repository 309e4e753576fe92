#include "controllers/disruption/budget_status.h"

#include <algorithm>

#include "common/json_view.h"
#include "controllers/apps/object_util.h"
#include "controllers/deployment/rollout_math.h"

namespace kmock::controllers::disruption {

namespace {

bool Present(const json& spec, const char* key) {
  return !ValueAt(spec, key).is_null();
}

// When the pod was evicted, if status.disruptedPods names it.
std::optional<TimePoint> DisruptedAt(const json& disrupted,
                                     const std::string& pod) {
  const json& v = ValueAt(disrupted, pod.c_str());
  TimePoint t{};
  if (!v.is_string() || !ParseRfc3339(v.get<std::string>(), &t)) {
    return std::nullopt;
  }
  return t;
}

}  // namespace

bool NeedsControllerScale(const json& spec) {
  return Present(spec, "maxUnavailable") ||
         ValueAt(spec, "minAvailable").is_string();
}

std::optional<BudgetCounts> CountBudget(const json& pdb,
                                        const std::vector<const json*>& pods,
                                        int64_t controller_scale,
                                        TimePoint now) {
  const json& spec = ObjectAt(pdb, "spec");
  BudgetCounts c;
  if (Present(spec, "maxUnavailable")) {
    c.expected = controller_scale;
    std::optional<int64_t> max_unavailable = deployment::ScaledValue(
        ValueAt(spec, "maxUnavailable"), c.expected, /*round_up=*/true);
    if (!max_unavailable) return std::nullopt;
    c.desired_healthy = std::max<int64_t>(0, c.expected - *max_unavailable);
  } else if (const json& min = ValueAt(spec, "minAvailable");
             min.is_number_integer()) {
    c.expected = static_cast<int64_t>(pods.size());
    c.desired_healthy = min.get<int64_t>();
  } else if (min.is_string()) {
    c.expected = controller_scale;
    std::optional<int64_t> desired =
        deployment::ScaledValue(min, c.expected, /*round_up=*/true);
    if (!desired) return std::nullopt;
    c.desired_healthy = *desired;
  }
  const json& disrupted = ObjectAt(ObjectAt(pdb, "status"), "disruptedPods");
  for (const json* pod : pods) {
    if (apps::IsBeingDeleted(*pod)) continue;
    std::optional<TimePoint> evicted =
        DisruptedAt(disrupted, apps::NameOf(*pod));
    if (evicted && *evicted + kDeletionTimeout > now) continue;
    if (apps::IsPodReady(*pod)) ++c.current_healthy;
  }
  return c;
}

json PendingDisruptions(const json& pdb, const std::vector<const json*>& pods,
                        TimePoint now, std::optional<TimePoint>* next_expiry) {
  const json& disrupted = ObjectAt(ObjectAt(pdb, "status"), "disruptedPods");
  json pending = json::object();
  if (disrupted.empty()) return pending;
  for (const json* pod : pods) {
    if (apps::IsBeingDeleted(*pod)) continue;
    const std::string name = apps::NameOf(*pod);
    std::optional<TimePoint> evicted = DisruptedAt(disrupted, name);
    if (!evicted) continue;
    const TimePoint lapses = *evicted + kDeletionTimeout;
    if (lapses <= now) continue;
    pending[name] = disrupted[name];
    if (!*next_expiry || lapses < **next_expiry) *next_expiry = lapses;
  }
  return pending;
}

json BudgetStatus(const json& pdb, const BudgetCounts& counts,
                  json disrupted_pods, TimePoint now,
                  const std::string& failure) {
  const json& old = ObjectAt(pdb, "status");
  int64_t allowed = counts.current_healthy - counts.desired_healthy;
  if (counts.expected <= 0 || allowed <= 0 || !failure.empty()) allowed = 0;
  json status = json::object();
  if (failure.empty()) {
    status["currentHealthy"] = counts.current_healthy;
    status["desiredHealthy"] = counts.desired_healthy;
    status["expectedPods"] = counts.expected;
    if (!disrupted_pods.empty()) {
      status["disruptedPods"] = std::move(disrupted_pods);
    }
    status["observedGeneration"] =
        ValueAt(ObjectAt(pdb, "metadata"), "generation");
  } else {
    // What the last good sync found stays; only the verdict changes.
    status = old.is_object() ? old : json::object();
    for (const char* key :
         {"currentHealthy", "desiredHealthy", "expectedPods"}) {
      if (!status.contains(key)) status[key] = 0;
    }
  }
  status["disruptionsAllowed"] = allowed;
  json condition = {{"type", "DisruptionAllowed"},
                    {"status", allowed > 0 ? "True" : "False"},
                    {"lastTransitionTime", FormatRfc3339(now)},
                    {"reason", !failure.empty() ? "SyncFailed"
                               : allowed > 0    ? "SufficientPods"
                                                : "InsufficientPods"},
                    {"message", failure}};
  json conditions = json::array();
  for (const json& c : ArrayAt(old, "conditions")) {
    if (StringAt(c, "type") != "DisruptionAllowed") {
      conditions.push_back(c);
      continue;
    }
    if (StringAt(c, "status") == StringAt(condition, "status")) {
      condition["lastTransitionTime"] = ValueAt(c, "lastTransitionTime");
    }
  }
  conditions.push_back(std::move(condition));
  status["conditions"] = std::move(conditions);
  return status;
}

}  // namespace kmock::controllers::disruption
