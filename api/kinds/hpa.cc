#include "api/kinds/hpa.h"

#include "api/kinds/util.h"

namespace kmock::api::kinds {

namespace {

// Copies the members `keys` of from[section] to to[section].
void CopyMembers(const json& from, json& to, const char* section,
                 std::initializer_list<const char*> keys) {
  const json* src = Find(from, {section});
  if (src == nullptr || !src->is_object()) return;
  for (const char* k : keys) {
    auto it = src->find(k);
    if (it != src->end()) to[section][k] = *it;
  }
}

bool IsCpuResource(const json& metric) {
  return Str(metric, {"type"}) == "Resource" &&
         Str(metric, {"resource", "name"}) == "cpu";
}

}  // namespace

json HpaV2ToV1(const json& v2) {
  json v1 = {{"apiVersion", "autoscaling/v1"},
             {"kind", "HorizontalPodAutoscaler"}};
  if (const json* md = Find(v2, {"metadata"})) v1["metadata"] = *md;
  CopyMembers(v2, v1, "spec", {"scaleTargetRef", "minReplicas", "maxReplicas"});
  for (const json& m : Array(v2, {"spec", "metrics"})) {
    const json* u = Find(m, {"resource", "target", "averageUtilization"});
    if (IsCpuResource(m) && u != nullptr) {
      v1["spec"]["targetCPUUtilizationPercentage"] = *u;
      break;
    }
  }
  if (Find(v2, {"status"}) != nullptr) {
    v1["status"] = json::object();
    CopyMembers(v2, v1, "status",
                {"observedGeneration", "lastScaleTime", "currentReplicas",
                 "desiredReplicas"});
    for (const json& m : Array(v2, {"status", "currentMetrics"})) {
      const json* u = Find(m, {"resource", "current", "averageUtilization"});
      if (IsCpuResource(m) && u != nullptr) {
        v1["status"]["currentCPUUtilizationPercentage"] = *u;
        break;
      }
    }
  }
  return v1;
}

json HpaV1ToV2(const json& v1) {
  json v2 = {{"apiVersion", "autoscaling/v2"},
             {"kind", "HorizontalPodAutoscaler"}};
  if (const json* md = Find(v1, {"metadata"})) v2["metadata"] = *md;
  CopyMembers(v1, v2, "spec", {"scaleTargetRef", "minReplicas", "maxReplicas"});
  // Without a target the stored form takes v2's default: 80% CPU.
  const json* t = Find(v1, {"spec", "targetCPUUtilizationPercentage"});
  v2["spec"]["metrics"] = json::array(
      {{{"type", "Resource"},
        {"resource",
         {{"name", "cpu"},
          {"target",
           {{"type", "Utilization"},
            {"averageUtilization", t != nullptr ? *t : json(80)}}}}}}});
  if (Find(v1, {"status"}) != nullptr) {
    v2["status"] = json::object();
    CopyMembers(v1, v2, "status",
                {"observedGeneration", "lastScaleTime", "currentReplicas",
                 "desiredReplicas"});
    if (const json* c =
            Find(v1, {"status", "currentCPUUtilizationPercentage"})) {
      v2["status"]["currentMetrics"] = json::array(
          {{{"type", "Resource"},
            {"resource",
             {{"name", "cpu"}, {"current", {{"averageUtilization", *c}}}}}}});
    }
  }
  return v2;
}

}  // namespace kmock::api::kinds
