#include "controllers/job/pod_failure_policy.h"

#include "common/json_view.h"

namespace kmock::controllers::job {

using nlohmann::json;

namespace {

std::optional<std::string> MatchExitCodes(const json& rule, const json& pod,
                                          size_t index) {
  const json& codes = ObjectAt(rule, "onExitCodes");
  const std::string& container = StringAt(codes, "containerName");
  const bool in = StringAt(codes, "operator") == "In";
  const json& values = ArrayAt(codes, "values");
  const json& status = ObjectAt(pod, "status");
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    for (const json& cs : ArrayAt(status, list)) {
      const json& terminated = ObjectAt(ObjectAt(cs, "state"), "terminated");
      const json& code = ValueAt(terminated, "exitCode");
      if (!code.is_number_integer() || code.get<int64_t>() == 0) continue;
      if (!container.empty() && StringAt(cs, "name") != container) continue;
      bool listed = false;
      for (const json& v : values) listed = listed || v == code;
      if (listed != in) continue;
      return "Container " + StringAt(cs, "name") + " for pod " +
             StringAt(ObjectAt(pod, "metadata"), "namespace") + "/" +
             StringAt(ObjectAt(pod, "metadata"), "name") +
             " failed with exit code " + std::to_string(code.get<int64_t>()) +
             " matching " + StringAt(rule, "action") + " rule at index " +
             std::to_string(index);
    }
  }
  return std::nullopt;
}

std::optional<std::string> MatchConditions(const json& rule, const json& pod,
                                           size_t index) {
  for (const json& pattern : ArrayAt(rule, "onPodConditions")) {
    std::string want = StringAt(pattern, "status");
    if (want.empty()) want = "True";
    for (const json& c : ArrayAt(ObjectAt(pod, "status"), "conditions")) {
      if (StringAt(c, "type") != StringAt(pattern, "type") ||
          StringAt(c, "status") != want) {
        continue;
      }
      return "Pod " + StringAt(ObjectAt(pod, "metadata"), "namespace") + "/" +
             StringAt(ObjectAt(pod, "metadata"), "name") + " has condition " +
             StringAt(c, "type") + " matching " + StringAt(rule, "action") +
             " rule at index " + std::to_string(index);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<PolicyMatch> MatchPodFailurePolicy(const json& job,
                                                 const json& pod) {
  const json& rules =
      ArrayAt(ObjectAt(ObjectAt(job, "spec"), "podFailurePolicy"), "rules");
  for (size_t i = 0; i < rules.size(); ++i) {
    const json& rule = rules[i];
    std::optional<std::string> message;
    if (rule.contains("onExitCodes")) {
      message = MatchExitCodes(rule, pod, i);
    } else {
      message = MatchConditions(rule, pod, i);
    }
    if (message) return PolicyMatch{StringAt(rule, "action"), *message};
  }
  return std::nullopt;
}

}  // namespace kmock::controllers::job
