// Named Table cells of DaemonSets, StatefulSets, ControllerRevisions, Jobs,
// CronJobs, HorizontalPodAutoscalers and PodDisruptionBudgets: what
// kube-apiserver's printers compute from more than one field.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <string>
#include <vector>

#include "api/kinds/cells.h"
#include "api/kinds/util.h"
#include "common/clock.h"

namespace kmock::api::kinds {

namespace {

// The value at `path` unless it is absent or null.
const json* Present(const json& obj, std::initializer_list<const char*> path) {
  const json* v = Find(obj, path);
  return v && !v->is_null() ? v : nullptr;
}

const json& Or(const json* v) {
  static const json kEmpty = json::object();
  return v ? *v : kEmpty;
}

// A resource.Quantity as stored; Go prints a nil *Quantity as "<nil>".
std::string QuantityText(const json* q) {
  if (!q || q->is_null()) return "<nil>";
  return q->is_string() ? q->get<std::string>() : q->dump();
}

// An IntOrString as its String() prints it.
std::string IntOrStringText(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string Percent(const json* v) {
  return std::to_string(v && v->is_number_integer() ? v->get<int64_t>() : 0) +
         "%";
}

// --- apps/v1 ---------------------------------------------------------------

json ControllerRevisionController(const json& obj, TimePoint /*now*/) {
  for (const json& ref : Array(obj, {"metadata", "ownerReferences"})) {
    if (!ref.is_object() || !Bool(ref, {"controller"})) continue;
    std::string api_version = Str(ref, {"apiVersion"});
    size_t slash = api_version.find('/');
    std::string group =
        slash == std::string::npos ? "" : api_version.substr(0, slash);
    std::string kind = Str(ref, {"kind"});
    std::string name = Str(ref, {"name"});
    if (group.empty() && kind.empty()) return name;
    std::string group_kind = group.empty() ? kind : kind + "." + group;
    std::transform(group_kind.begin(), group_kind.end(), group_kind.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    return group_kind + "/" + name;
  }
  return "<none>";
}

json DaemonSetNodeSelector(const json& obj, TimePoint /*now*/) {
  const json* sel = Find(obj, {"spec", "template", "spec", "nodeSelector"});
  std::string out;
  if (sel && sel->is_object()) {
    for (const auto& [key, value] : sel->items()) {  // keys sorted
      if (!out.empty()) out += ",";
      out += key + "=" + (value.is_string() ? value.get<std::string>() : "");
    }
  }
  return out.empty() ? "<none>" : out;
}

json StatefulSetReady(const json& obj, TimePoint /*now*/) {
  return std::to_string(Int(obj, {"status", "readyReplicas"})) + "/" +
         std::to_string(Int(obj, {"spec", "replicas"}, 1));
}

// --- batch/v1 --------------------------------------------------------------

// Whether the first condition of `type` has status True.
bool HasJobCondition(const json& job, const std::string& type) {
  for (const json& c : Array(job, {"status", "conditions"})) {
    if (c.is_object() && Str(c, {"type"}) == type) {
      return Str(c, {"status"}) == "True";
    }
  }
  return false;
}

json JobStatus(const json& obj, TimePoint /*now*/) {
  if (HasJobCondition(obj, "Complete")) return "Complete";
  if (HasJobCondition(obj, "Failed")) return "Failed";
  if (Present(obj, {"metadata", "deletionTimestamp"})) return "Terminating";
  if (HasJobCondition(obj, "Suspended")) return "Suspended";
  if (HasJobCondition(obj, "FailureTarget")) return "FailureTarget";
  return "Running";
}

json JobCompletions(const json& obj, TimePoint /*now*/) {
  std::string succeeded = std::to_string(Int(obj, {"status", "succeeded"}));
  if (Present(obj, {"spec", "completions"})) {
    return succeeded + "/" + std::to_string(Int(obj, {"spec", "completions"}));
  }
  int64_t parallelism = Int(obj, {"spec", "parallelism"});
  if (parallelism > 1) {
    return succeeded + "/1 of " + std::to_string(parallelism);
  }
  return succeeded + "/1";
}

json JobDuration(const json& obj, TimePoint now) {
  TimePoint start;
  if (!ParseRfc3339(Str(obj, {"status", "startTime"}), &start)) return "";
  TimePoint end = now;
  std::string completion = Str(obj, {"status", "completionTime"});
  if (!completion.empty() && !ParseRfc3339(completion, &end)) end = now;
  return HumanDuration(
      std::chrono::duration_cast<std::chrono::seconds>(end - start));
}

json CronJobSuspend(const json& obj, TimePoint /*now*/) {
  const json* v = Present(obj, {"spec", "suspend"});
  if (!v || !v->is_boolean()) return "<unset>";
  return v->get<bool>() ? "True" : "False";
}

json CronJobLastSchedule(const json& obj, TimePoint now) {
  if (!Present(obj, {"status", "lastScheduleTime"})) return "<none>";
  return Since(Str(obj, {"status", "lastScheduleTime"}), now);
}

// --- autoscaling -----------------------------------------------------------

json HpaReference(const json& obj, TimePoint /*now*/) {
  return Str(obj, {"spec", "scaleTargetRef", "kind"}) + "/" +
         Str(obj, {"spec", "scaleTargetRef", "name"});
}

json HpaMinPods(const json& obj, TimePoint /*now*/) {
  if (!Present(obj, {"spec", "minReplicas"})) return "<unset>";
  return std::to_string(Int(obj, {"spec", "minReplicas"}));
}

// "cur/target" of a metric whose target is a value or an average value
// (Object and External metrics).
std::string ValueMetric(const json& source, const json* status) {
  if (const json* avg = Present(source, {"target", "averageValue"})) {
    const json* cur =
        status ? Present(*status, {"current", "averageValue"}) : nullptr;
    return (cur ? QuantityText(cur) : "<unknown>") + "/" + QuantityText(avg) +
           " (avg)";
  }
  std::string cur =
      status ? QuantityText(Find(*status, {"current", "value"})) : "<unknown>";
  return cur + "/" + QuantityText(Find(source, {"target", "value"}));
}

// "name: cur/target" of a Resource or ContainerResource metric.
std::string ResourceMetric(const json& source, const json* status) {
  std::string name = Str(source, {"name"}) + ": ";
  if (const json* avg = Present(source, {"target", "averageValue"})) {
    std::string cur =
        status ? QuantityText(Find(*status, {"current", "averageValue"}))
               : "<unknown>";
    return name + cur + "/" + QuantityText(avg);
  }
  const json* cur_util =
      status ? Present(*status, {"current", "averageUtilization"}) : nullptr;
  const json* target_util = Present(source, {"target", "averageUtilization"});
  return name + (cur_util ? Percent(cur_util) : "<unknown>") + "/" +
         (target_util ? Percent(target_util) : "<auto>");
}

// One metric of spec.metrics against the status entry at the same index.
std::string FormatMetric(const json& spec, const json* status) {
  struct Source {
    const char* type;
    const char* key;
    bool resource;
  };
  static const Source kSources[] = {
      {"External", "external", false},
      {"Pods", "pods", false},
      {"Object", "object", false},
      {"Resource", "resource", true},
      {"ContainerResource", "containerResource", true},
  };
  std::string type = Str(spec, {"type"});
  for (const Source& s : kSources) {
    if (type != s.type) continue;
    const json& source = Or(Present(spec, {s.key}));
    const json* st = status ? Present(*status, {s.key}) : nullptr;
    if (s.resource) return ResourceMetric(source, st);
    if (type != "Pods") return ValueMetric(source, st);
    return (st ? QuantityText(Find(*st, {"current", "averageValue"}))
               : "<unknown>") +
           "/" + QuantityText(Find(source, {"target", "averageValue"}));
  }
  return "<unknown type>";
}

// The metrics and their statuses of an HPA: spec.metrics as autoscaling/v2
// stores them, or the single CPU metric an autoscaling/v1 object converts to
// (80% when it names no target).
void HpaMetrics(const json& obj, json* specs, json* statuses) {
  bool v1 = Str(obj, {"apiVersion"}) == "autoscaling/v1" ||
            (!Present(obj, {"spec", "metrics"}) &&
             Present(obj, {"spec", "targetCPUUtilizationPercentage"}));
  if (!v1) {
    *specs = Array(obj, {"spec", "metrics"});
    *statuses = Array(obj, {"status", "currentMetrics"});
    return;
  }
  int64_t target = Int(obj, {"spec", "targetCPUUtilizationPercentage"}, 80);
  *specs = json::array(
      {{{"type", "Resource"},
        {"resource",
         {{"name", "cpu"},
          {"target",
           {{"type", "Utilization"}, {"averageUtilization", target}}}}}}});
  *statuses = json::array();
  if (const json* cur =
          Present(obj, {"status", "currentCPUUtilizationPercentage"})) {
    statuses->push_back(
        {{"type", "Resource"},
         {"resource",
          {{"name", "cpu"}, {"current", {{"averageUtilization", *cur}}}}}});
  }
}

json HpaTargets(const json& obj, TimePoint /*now*/) {
  constexpr size_t kMax = 2;
  json specs, statuses;
  HpaMetrics(obj, &specs, &statuses);
  if (specs.empty()) return "<none>";
  std::string out;
  for (size_t i = 0; i < specs.size() && i < kMax; ++i) {
    const json* status = i < statuses.size() ? &statuses[i] : nullptr;
    if (!out.empty()) out += ", ";
    out += FormatMetric(specs[i], status);
  }
  if (specs.size() > kMax) {
    out += " + " + std::to_string(specs.size() - kMax) + " more...";
  }
  return out;
}

// --- policy/v1 -------------------------------------------------------------

json PdbMinAvailable(const json& obj, TimePoint /*now*/) {
  const json* v = Present(obj, {"spec", "minAvailable"});
  return v ? IntOrStringText(*v) : "N/A";
}

json PdbMaxUnavailable(const json& obj, TimePoint /*now*/) {
  const json* v = Present(obj, {"spec", "maxUnavailable"});
  return v ? IntOrStringText(*v) : "N/A";
}

}  // namespace

void AddWorkloadCells(CellTable* table) {
  table->insert({
      {"controllerRevisionController", ControllerRevisionController},
      {"daemonSetNodeSelector", DaemonSetNodeSelector},
      {"statefulSetReady", StatefulSetReady},
      {"jobStatus", JobStatus},
      {"jobCompletions", JobCompletions},
      {"jobDuration", JobDuration},
      {"cronJobSuspend", CronJobSuspend},
      {"cronJobLastSchedule", CronJobLastSchedule},
      {"hpaReference", HpaReference},
      {"hpaTargets", HpaTargets},
      {"hpaMinPods", HpaMinPods},
      {"pdbMinAvailable", PdbMinAvailable},
      {"pdbMaxUnavailable", PdbMaxUnavailable},
  });
}

}  // namespace kmock::api::kinds
