// Deployment status and conditions (pure), as kube-controller-manager
// computes them: the counts from the ReplicaSets, Available
// (MinimumReplicasAvailable / MinimumReplicasUnavailable), Progressing
// (NewReplicaSetCreated, FoundNewReplicaSet, ReplicaSetUpdated,
// NewReplicaSetAvailable, ProgressDeadlineExceeded, DeploymentPaused,
// DeploymentResumed) with upstream's rules for lastUpdateTime and
// lastTransitionTime, and ReplicaFailure copied from the ReplicaSets.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_CONTROLLERS_DEPLOYMENT_CONDITIONS_H_
#define KMOCK_CONTROLLERS_DEPLOYMENT_CONDITIONS_H_

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"

namespace kmock::controllers::deployment {

using nlohmann::json;

inline constexpr char kNewRSReason[] = "NewReplicaSetCreated";
inline constexpr char kFoundNewRSReason[] = "FoundNewReplicaSet";
inline constexpr char kRSUpdatedReason[] = "ReplicaSetUpdated";
inline constexpr char kNewRSAvailableReason[] = "NewReplicaSetAvailable";
inline constexpr char kTimedOutReason[] = "ProgressDeadlineExceeded";
inline constexpr char kPausedReason[] = "DeploymentPaused";
inline constexpr char kResumedReason[] = "DeploymentResumed";
inline constexpr char kFailedRSCreateReason[] = "ReplicaSetCreateError";

json NewCondition(const std::string& type, const std::string& status,
                  const std::string& reason, const std::string& message,
                  TimePoint now);
// The condition of this type in a status object, or null.
const json* GetCondition(const json& status, const std::string& type);
// Adds or replaces the condition; a condition with the same status and
// reason is left alone, and one with the same status keeps its
// lastTransitionTime.
void SetCondition(json* status, json cond);
void RemoveCondition(json* status, const std::string& type);

// progressDeadlineSeconds is set (and not MaxInt32).
bool HasProgressDeadline(const json& d);

// Every replica updated, present and available, at the current generation.
bool DeploymentComplete(const json& d, const json& status);
// More updated, ready or available pods, or fewer old ones, than the
// deployment's recorded status.
bool DeploymentProgressing(const json& d, const json& status);
// The Progressing condition has not been updated for longer than the
// deadline.
bool DeploymentTimedOut(const json& d, const json& status, TimePoint now);

// The status from the ReplicaSets (`all` includes the new one, if any),
// with Available set; other conditions are kept.
json CalculateStatus(const std::vector<json>& all,
                     const std::optional<json>& new_rs, const json& d,
                     TimePoint now);

// syncRolloutStatus: CalculateStatus plus the Progressing transitions and
// the ReplicaFailure condition of the ReplicaSets.
json RolloutStatus(const std::vector<json>& all,
                   const std::optional<json>& new_rs, const json& d,
                   TimePoint now);

// When a deployment whose status did not change must be looked at again to
// notice a missed deadline (nullopt: not needed).
std::optional<std::chrono::nanoseconds> StuckRequeue(const json& d,
                                                     const json& new_status,
                                                     TimePoint now);

// Sets the DeploymentPaused / DeploymentResumed Progressing condition on
// d's status when spec.paused changed; true when the status changed.
bool CheckPausedConditions(json* d, TimePoint now);

}  // namespace kmock::controllers::deployment

#endif  // KMOCK_CONTROLLERS_DEPLOYMENT_CONDITIONS_H_
