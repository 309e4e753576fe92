#include "controllers/scheduling/claim_check.h"

#include "common/json_view.h"

namespace kmock::controllers::scheduling {

namespace {

std::vector<std::string> ClaimNames(const json& pod) {
  std::vector<std::string> out;
  for (const json& v : ArrayAt(ObjectAt(pod, "spec"), "volumes")) {
    const json& source = ObjectAt(v, "persistentVolumeClaim");
    const std::string& name = StringAt(source, "claimName");
    if (!name.empty()) out.push_back(name);
  }
  return out;
}

}  // namespace

bool UsesClaims(const json& pod) {
  for (const json& v : ArrayAt(ObjectAt(pod, "spec"), "volumes")) {
    if (v.is_object() && v.contains("persistentVolumeClaim")) return true;
  }
  return false;
}

ClaimsVerdict CheckPodClaims(
    const json& pod,
    const std::function<std::optional<json>(const std::string& name)>& claim,
    const std::function<std::optional<std::string>(const std::string& name)>&
        binding_mode) {
  ClaimsVerdict v;
  bool unbound_immediate = false;
  for (const std::string& name : ClaimNames(pod)) {
    std::optional<json> c = claim(name);
    if (!c) {
      v.refusal = "persistentvolumeclaim \"" + name + "\" not found";
      return v;
    }
    if (ObjectAt(*c, "metadata").contains("deletionTimestamp")) {
      v.refusal = "persistentvolumeclaim \"" + name + "\" is being deleted";
      return v;
    }
    if (!StringAt(ObjectAt(*c, "spec"), "volumeName").empty()) continue;
    const std::string& class_name =
        StringAt(ObjectAt(*c, "spec"), "storageClassName");
    std::optional<std::string> mode =
        class_name.empty() ? std::nullopt : binding_mode(class_name);
    if (mode && *mode == "WaitForFirstConsumer") {
      v.delayed.push_back(name);
    } else {
      unbound_immediate = true;
    }
  }
  if (unbound_immediate) {
    v.refusal = "pod has unbound immediate PersistentVolumeClaims";
    v.delayed.clear();
  }
  return v;
}

json WithRequiredNodeExpressions(json pod, const json& expressions) {
  if (expressions.empty()) return pod;
  json& required = pod["spec"]["affinity"]["nodeAffinity"]
                      ["requiredDuringSchedulingIgnoredDuringExecution"];
  json& terms = required["nodeSelectorTerms"];
  if (!terms.is_array() || terms.empty()) terms = json::array({json::object()});
  for (json& term : terms) {
    json& exprs = term["matchExpressions"];
    if (!exprs.is_array()) exprs = json::array();
    for (const json& e : expressions) exprs.push_back(e);
  }
  return pod;
}

std::string PreFilterMessage(size_t nodes, const std::string& refusal) {
  const std::string n = std::to_string(nodes);
  return "0/" + n + " nodes are available: " + refusal + ". preemption: 0/" +
         n + " nodes are available: " + n +
         " Preemption is not helpful for scheduling.";
}

}  // namespace kmock::controllers::scheduling
