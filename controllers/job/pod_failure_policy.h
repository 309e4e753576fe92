// A Job's podFailurePolicy applied to a failed pod (pure), as the Job
// controller applies it: the first rule whose onExitCodes (a terminated
// container, exit code not 0, the rule's container if named, operator In or
// NotIn) or onPodConditions (a condition of that type and status) matches,
// with the message a FailJob rule puts on the Job.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_CONTROLLERS_JOB_POD_FAILURE_POLICY_H_
#define KMOCK_CONTROLLERS_JOB_POD_FAILURE_POLICY_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace kmock::controllers::job {

struct PolicyMatch {
  std::string action;  // FailJob, FailIndex, Ignore, Count
  std::string message;
};

// nullopt when the Job has no policy or no rule matches.
std::optional<PolicyMatch> MatchPodFailurePolicy(const nlohmann::json& job,
                                                 const nlohmann::json& pod);

}  // namespace kmock::controllers::job

#endif  // KMOCK_CONTROLLERS_JOB_POD_FAILURE_POLICY_H_
