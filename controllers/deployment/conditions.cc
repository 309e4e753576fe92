#include "controllers/deployment/conditions.h"

#include <limits>

#include "common/json_view.h"
#include "controllers/apps/object_util.h"
#include "controllers/deployment/rollout_math.h"

namespace kmock::controllers::deployment {

namespace {

using apps::IntAt;

TimePoint ParseTime(const json& cond, const char* field) {
  TimePoint t{};
  if (!ParseRfc3339(cond.value(field, ""), &t)) return TimePoint{};
  return t;
}

void SetCount(json* status, const char* field, int64_t n) {
  if (n == 0) {
    status->erase(field);
  } else {
    (*status)[field] = n;
  }
}

}  // namespace

json NewCondition(const std::string& type, const std::string& status,
                  const std::string& reason, const std::string& message,
                  TimePoint now) {
  std::string t = FormatRfc3339(now);
  return {{"type", type},        {"status", status},
          {"lastUpdateTime", t}, {"lastTransitionTime", t},
          {"reason", reason},    {"message", message}};
}

const json* GetCondition(const json& status, const std::string& type) {
  if (!status.is_object() || !status.contains("conditions") ||
      !status["conditions"].is_array()) {
    return nullptr;
  }
  for (const auto& c : status["conditions"]) {
    if (c.value("type", "") == type) return &c;
  }
  return nullptr;
}

void RemoveCondition(json* status, const std::string& type) {
  if (!status->contains("conditions")) return;
  json kept = json::array();
  for (const auto& c : (*status)["conditions"]) {
    if (c.value("type", "") != type) kept.push_back(c);
  }
  if (kept.empty()) {
    status->erase("conditions");
  } else {
    (*status)["conditions"] = kept;
  }
}

void SetCondition(json* status, json cond) {
  std::string type = cond.value("type", "");
  const json* cur = GetCondition(*status, type);
  if (cur != nullptr && cur->value("status", "") == cond.value("status", "") &&
      cur->value("reason", "") == cond.value("reason", "")) {
    return;
  }
  if (cur != nullptr && cur->value("status", "") == cond.value("status", "")) {
    cond["lastTransitionTime"] = (*cur)["lastTransitionTime"];
  }
  RemoveCondition(status, type);
  (*status)["conditions"].push_back(std::move(cond));
}

bool HasProgressDeadline(const json& d) {
  const json& spec = ObjectAt(d, "spec");
  return spec.contains("progressDeadlineSeconds") &&
         spec["progressDeadlineSeconds"].is_number() &&
         spec["progressDeadlineSeconds"].get<int64_t>() !=
             std::numeric_limits<int32_t>::max();
}

bool DeploymentComplete(const json& d, const json& status) {
  int64_t replicas = Replicas(d);
  return IntAt(status, {"updatedReplicas"}) == replicas &&
         IntAt(status, {"replicas"}) == replicas &&
         IntAt(status, {"availableReplicas"}) == replicas &&
         IntAt(status, {"observedGeneration"}) >=
             IntAt(d, {"metadata", "generation"});
}

bool DeploymentProgressing(const json& d, const json& status) {
  const json& old = ObjectAt(d, "status");
  int64_t old_old = IntAt(old, {"replicas"}) - IntAt(old, {"updatedReplicas"});
  int64_t new_old =
      IntAt(status, {"replicas"}) - IntAt(status, {"updatedReplicas"});
  return IntAt(status, {"updatedReplicas"}) > IntAt(old, {"updatedReplicas"}) ||
         new_old < old_old ||
         IntAt(status, {"readyReplicas"}) > IntAt(old, {"readyReplicas"}) ||
         IntAt(status, {"availableReplicas"}) >
             IntAt(old, {"availableReplicas"});
}

bool DeploymentTimedOut(const json& d, const json& status, TimePoint now) {
  if (!HasProgressDeadline(d)) return false;
  const json* cond = GetCondition(status, "Progressing");
  if (cond == nullptr) return false;
  std::string reason = cond->value("reason", "");
  if (reason == kNewRSAvailableReason) return false;
  if (reason == kTimedOutReason) return true;
  TimePoint from = ParseTime(*cond, "lastUpdateTime");
  auto deadline =
      std::chrono::seconds(IntAt(d, {"spec", "progressDeadlineSeconds"}));
  return from + deadline < now;
}

json CalculateStatus(const std::vector<json>& all,
                     const std::optional<json>& new_rs, const json& d,
                     TimePoint now) {
  json status = json::object();
  int64_t available = SumStatus(all, "availableReplicas");
  int64_t unavailable = std::max<int64_t>(0, SumReplicas(all) - available);
  SetCount(&status, "observedGeneration", IntAt(d, {"metadata", "generation"}));
  SetCount(&status, "replicas", SumStatus(all, "replicas"));
  SetCount(&status, "updatedReplicas",
           new_rs ? IntAt(*new_rs, {"status", "replicas"}) : 0);
  SetCount(&status, "readyReplicas", SumStatus(all, "readyReplicas"));
  SetCount(&status, "availableReplicas", available);
  SetCount(&status, "unavailableReplicas", unavailable);
  const json& old = ObjectAt(d, "status");
  if (old.contains("collisionCount")) {
    status["collisionCount"] = old["collisionCount"];
  }
  if (old.contains("conditions")) status["conditions"] = old["conditions"];
  if (available >= Replicas(d) - MaxUnavailable(d)) {
    SetCondition(&status,
                 NewCondition("Available", "True", "MinimumReplicasAvailable",
                              "Deployment has minimum availability.", now));
  } else {
    SetCondition(
        &status,
        NewCondition("Available", "False", "MinimumReplicasUnavailable",
                     "Deployment does not have minimum availability.", now));
  }
  return status;
}

json RolloutStatus(const std::vector<json>& all,
                   const std::optional<json>& new_rs, const json& d,
                   TimePoint now) {
  json status = CalculateStatus(all, new_rs, d, now);
  if (!HasProgressDeadline(d)) RemoveCondition(&status, "Progressing");
  const json& old_status = ObjectAt(d, "status");
  const json* cur = GetCondition(old_status, "Progressing");
  bool complete_before =
      IntAt(status, {"replicas"}) == IntAt(status, {"updatedReplicas"}) &&
      cur != nullptr && cur->value("reason", "") == kNewRSAvailableReason;
  std::string rs_name = new_rs ? apps::NameOf(*new_rs) : "";
  if (HasProgressDeadline(d) && !complete_before) {
    if (DeploymentComplete(d, status)) {
      std::string msg =
          new_rs ? "ReplicaSet \"" + rs_name + "\" has successfully progressed."
                 : "Deployment has successfully progressed.";
      SetCondition(&status, NewCondition("Progressing", "True",
                                         kNewRSAvailableReason, msg, now));
    } else if (DeploymentProgressing(d, status)) {
      std::string msg = new_rs
                            ? "ReplicaSet \"" + rs_name + "\" is progressing."
                            : "Deployment is progressing.";
      json cond =
          NewCondition("Progressing", "True", kRSUpdatedReason, msg, now);
      if (cur != nullptr) {
        if (cur->value("status", "") == "True") {
          cond["lastTransitionTime"] = (*cur)["lastTransitionTime"];
        }
        RemoveCondition(&status, "Progressing");
      }
      SetCondition(&status, cond);
    } else if (DeploymentTimedOut(d, status, now)) {
      std::string msg =
          new_rs ? "ReplicaSet \"" + rs_name + "\" has timed out progressing."
                 : "Deployment \"" + apps::NameOf(d) +
                       "\" has timed out progressing.";
      SetCondition(&status, NewCondition("Progressing", "False",
                                         kTimedOutReason, msg, now));
    }
  }
  // The first ReplicaFailure of the ReplicaSets (the new one first).
  std::optional<json> failure;
  auto find_failure = [&](const json& rs) {
    if (failure) return;
    const json& rs_status = ObjectAt(rs, "status");
    if (const json* c = GetCondition(rs_status, "ReplicaFailure");
        c != nullptr) {
      failure =
          NewCondition("ReplicaFailure", c->value("status", ""),
                       c->value("reason", ""), c->value("message", ""), now);
      TimePoint t = ParseTime(*c, "lastTransitionTime");
      if (t != TimePoint{}) {
        (*failure)["lastTransitionTime"] = FormatRfc3339(t);
        (*failure)["lastUpdateTime"] = FormatRfc3339(t);
      }
    }
  };
  if (new_rs) find_failure(*new_rs);
  for (const auto& rs : all) find_failure(rs);
  if (failure) {
    SetCondition(&status, *failure);
  } else {
    RemoveCondition(&status, "ReplicaFailure");
  }
  return status;
}

std::optional<std::chrono::nanoseconds> StuckRequeue(const json& d,
                                                     const json& new_status,
                                                     TimePoint now) {
  const json& old_status = ObjectAt(d, "status");
  const json* cur = GetCondition(old_status, "Progressing");
  if (!HasProgressDeadline(d) || cur == nullptr) return std::nullopt;
  if (DeploymentComplete(d, new_status) ||
      cur->value("reason", "") == kTimedOutReason) {
    return std::nullopt;
  }
  TimePoint at =
      ParseTime(*cur, "lastUpdateTime") +
      std::chrono::seconds(IntAt(d, {"spec", "progressDeadlineSeconds"}));
  auto after = at - now;
  if (after < std::chrono::seconds(1)) return std::chrono::nanoseconds(0);
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
      after + std::chrono::seconds(1));
}

bool CheckPausedConditions(json* d, TimePoint now) {
  if (!HasProgressDeadline(*d)) return false;
  json& status = (*d)["status"];
  if (!status.is_object()) status = json::object();
  const json* cond = GetCondition(status, "Progressing");
  if (cond != nullptr && cond->value("reason", "") == kTimedOutReason) {
    return false;
  }
  bool paused_cond =
      cond != nullptr && cond->value("reason", "") == kPausedReason;
  bool paused = ObjectAt(*d, "spec").value("paused", false);
  if (paused && !paused_cond) {
    SetCondition(&status, NewCondition("Progressing", "Unknown", kPausedReason,
                                       "Deployment is paused", now));
    return true;
  }
  if (!paused && paused_cond) {
    SetCondition(&status, NewCondition("Progressing", "Unknown", kResumedReason,
                                       "Deployment is resumed", now));
    return true;
  }
  return false;
}

}  // namespace kmock::controllers::deployment
