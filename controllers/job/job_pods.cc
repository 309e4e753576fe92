#include "controllers/job/job_pods.h"

#include <cstdlib>
#include <sstream>

#include "common/json_view.h"
#include "controllers/apps/object_util.h"

namespace kmock::controllers::job {

namespace {

const std::string& Phase(const json& pod) {
  return StringAt(ObjectAt(pod, "status"), "phase");
}

void AddIndexEnv(json* containers) {
  if (!containers->is_array()) return;
  for (json& c : *containers) {
    json& env = c["env"];
    if (!env.is_array()) env = json::array();
    bool present = false;
    for (const json& e : env) {
      if (StringAt(e, "name") == "JOB_COMPLETION_INDEX") present = true;
    }
    if (present) continue;
    env.push_back({{"name", "JOB_COMPLETION_INDEX"},
                   {"valueFrom",
                    {{"fieldRef",
                      {{"apiVersion", "v1"},
                       {"fieldPath", std::string("metadata.annotations['") +
                                         kCompletionIndex + "']"}}}}}});
  }
}

}  // namespace

bool IsIndexed(const json& job) {
  return StringAt(ObjectAt(job, "spec"), "completionMode") == "Indexed";
}

json NewJobPod(const json& job, std::optional<int64_t> index,
               const json& owner_ref) {
  const json& meta = ObjectAt(job, "metadata");
  const json& tmpl = ObjectAt(ObjectAt(job, "spec"), "template");
  const json& tmeta = ObjectAt(tmpl, "metadata");
  const std::string& name = StringAt(meta, "name");
  json md = {{"generateName",
              index ? name + "-" + std::to_string(*index) + "-" : name + "-"},
             {"namespace", StringAt(meta, "namespace")},
             {"ownerReferences", json::array({owner_ref})}};
  for (const char* f : {"labels", "annotations"}) {
    if (tmeta.contains(f) && tmeta[f].is_object() && !tmeta[f].empty()) {
      md[f] = tmeta[f];
    }
  }
  if (tmeta.contains("finalizers") && tmeta["finalizers"].is_array()) {
    md["finalizers"] = tmeta["finalizers"];
  }
  json& finalizers = md["finalizers"];
  if (!finalizers.is_array()) finalizers = json::array();
  finalizers.push_back(kTrackingFinalizer);
  json spec = ObjectAt(tmpl, "spec");
  if (!spec.is_object()) spec = json::object();
  if (index) {
    const std::string i = std::to_string(*index);
    md["annotations"][kCompletionIndex] = i;
    md["labels"][kCompletionIndex] = i;
    if (StringAt(spec, "hostname").empty()) {
      spec["hostname"] = name + "-" + i;
    }
    AddIndexEnv(&spec["containers"]);
    if (spec.contains("initContainers")) AddIndexEnv(&spec["initContainers"]);
  }
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", std::move(md)},
          {"spec", std::move(spec)}};
}

std::optional<int64_t> CompletionIndex(const json& pod) {
  const json& md = ObjectAt(pod, "metadata");
  std::string v = StringAt(ObjectAt(md, "annotations"), kCompletionIndex);
  if (v.empty()) v = StringAt(ObjectAt(md, "labels"), kCompletionIndex);
  if (v.empty() || v.size() > 9) return std::nullopt;
  for (char c : v) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return std::stoll(v);
}

bool HasTrackingFinalizer(const json& pod) {
  for (const json& f : ArrayAt(ObjectAt(pod, "metadata"), "finalizers")) {
    if (f.is_string() && f.get<std::string>() == kTrackingFinalizer) {
      return true;
    }
  }
  return false;
}

bool IsSucceeded(const json& pod) { return Phase(pod) == "Succeeded"; }

bool IsFailed(const json& pod, const json& job) {
  if (Phase(pod) == "Failed") return true;
  if (StringAt(ObjectAt(job, "spec"), "podReplacementPolicy") == "Failed") {
    return false;
  }
  return apps::IsBeingDeleted(pod) && Phase(pod) != "Succeeded";
}

bool IsActive(const json& pod) { return apps::IsPodActive(pod); }

bool IsTerminating(const json& pod) {
  return apps::IsBeingDeleted(pod) && Phase(pod) != "Succeeded" &&
         Phase(pod) != "Failed";
}

const json* TrueCondition(const json& job, const std::string& type) {
  for (const json& c : ArrayAt(ObjectAt(job, "status"), "conditions")) {
    if (StringAt(c, "type") == type && StringAt(c, "status") == "True") {
      return &c;
    }
  }
  return nullptr;
}

bool IsFinished(const json& job) {
  return TrueCondition(job, "Complete") != nullptr ||
         TrueCondition(job, "Failed") != nullptr;
}

bool SetCondition(json* status, const std::string& type,
                  const std::string& condition_status,
                  const std::string& reason, const std::string& message,
                  TimePoint now) {
  json& conditions = (*status)["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  const std::string at = FormatRfc3339(now);
  for (json& c : conditions) {
    if (StringAt(c, "type") != type) continue;
    if (StringAt(c, "status") == condition_status &&
        StringAt(c, "reason") == reason && StringAt(c, "message") == message) {
      return false;
    }
    if (StringAt(c, "status") != condition_status) c["lastTransitionTime"] = at;
    c["status"] = condition_status;
    c["reason"] = reason;
    c["message"] = message;
    c["lastProbeTime"] = at;
    return true;
  }
  conditions.push_back({{"type", type},
                        {"status", condition_status},
                        {"lastProbeTime", at},
                        {"lastTransitionTime", at},
                        {"reason", reason},
                        {"message", message}});
  return true;
}

std::set<int64_t> ParseIndexes(const std::string& s) {
  std::set<int64_t> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');) {
    const size_t dash = part.find('-');
    char* end = nullptr;
    const int64_t first = std::strtoll(part.c_str(), &end, 10);
    if (end == part.c_str()) continue;
    int64_t last = first;
    if (dash != std::string::npos) {
      last = std::strtoll(part.c_str() + dash + 1, &end, 10);
    }
    for (int64_t i = first; i <= last && i - first < 1000000; ++i) {
      out.insert(i);
    }
  }
  return out;
}

std::string FormatIndexes(const std::set<int64_t>& indexes) {
  std::string out;
  auto it = indexes.begin();
  while (it != indexes.end()) {
    const int64_t first = *it;
    int64_t last = first;
    for (++it; it != indexes.end() && *it == last + 1; ++it) last = *it;
    if (!out.empty()) out += ",";
    out += std::to_string(first);
    if (last != first) {
      out += (last == first + 1 ? "," : "-") + std::to_string(last);
    }
  }
  return out;
}

}  // namespace kmock::controllers::job
