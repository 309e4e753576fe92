// The status a ReplicaSet controller writes (pure): replicas,
// fullyLabeledReplicas, readyReplicas, availableReplicas, and the
// ReplicaFailure condition while creating or deleting pods fails.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_CONTROLLERS_REPLICASET_STATUS_H_
#define KMOCK_CONTROLLERS_REPLICASET_STATUS_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "controllers/replicaset/pod_facts.h"

namespace kmock::controllers::replicaset {

using nlohmann::json;

// Pods by reference: the controller passes its informer's cached objects
// without copying them.
using PodRefs = std::vector<const json*>;
inline PodRefs RefsOf(const std::vector<json>& pods) {
  PodRefs refs;
  refs.reserve(pods.size());
  for (const auto& p : pods) refs.push_back(&p);
  return refs;
}

// `pods`: the active pods the ReplicaSet owns. `manage_error`: the message
// of a failed create or delete in this sync, if any. observedGeneration is
// left as it was.
json CalculateStatus(const json& rs, const PodRefs& pods,
                     const std::optional<std::string>& manage_error,
                     TimePoint now);

// When the earliest ready-but-not-yet-available pod becomes available
// (nullopt if none is waiting).
std::optional<TimePoint> NextAvailableAt(const json& rs, const PodRefs& pods,
                                         TimePoint now);

// The same from the pods' facts (FactsOf against this ReplicaSet), as the
// controller keeps them.
json CalculateStatus(const json& rs, const std::vector<PodFacts>& pods,
                     const std::optional<std::string>& manage_error,
                     TimePoint now);
std::optional<TimePoint> NextAvailableAt(const json& rs,
                                         const std::vector<PodFacts>& pods,
                                         TimePoint now);

}  // namespace kmock::controllers::replicaset

#endif  // KMOCK_CONTROLLERS_REPLICASET_STATUS_H_
