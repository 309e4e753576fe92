// The arithmetic of a Deployment rollout (pure), as kube-controller-manager
// computes it: maxSurge/maxUnavailable from integers or percentages
// (surge rounds up, unavailable down, both 0 becomes unavailable 1), the
// size of the new ReplicaSet during a rolling update, how far old
// ReplicaSets may be scaled down, and the proportional split of a scale
// change across several active ReplicaSets.
//
// ReplicaSets are JSON objects; sizes are spec.replicas.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_CONTROLLERS_DEPLOYMENT_ROLLOUT_MATH_H_
#define KMOCK_CONTROLLERS_DEPLOYMENT_ROLLOUT_MATH_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kmock::controllers::deployment {

using nlohmann::json;

// An intstr value against `total`: an integer as is, "N%" scaled and
// rounded up or down. nullopt for a malformed value.
std::optional<int64_t> ScaledValue(const json& int_or_percent, int64_t total,
                                   bool round_up);

struct Fenceposts {
  int64_t surge = 0;
  int64_t unavailable = 0;
};
Fenceposts ResolveFenceposts(const json& max_surge, const json& max_unavailable,
                             int64_t desired);

bool IsRollingUpdate(const json& d);
// spec.replicas (1 when absent).
int64_t Replicas(const json& obj);
// 0 unless a rolling update.
int64_t MaxSurge(const json& d);
// 0 unless a rolling update with replicas; never above spec.replicas.
int64_t MaxUnavailable(const json& d);

int64_t SumReplicas(const std::vector<json>& rses);
// Sum of an integer status field (replicas, readyReplicas, ...).
int64_t SumStatus(const std::vector<json>& rses, const char* field);
// ReplicaSets with spec.replicas > 0.
std::vector<json> FilterActive(const std::vector<json>& rses);

// Oldest first (creationTimestamp, then name).
// Created earlier, or at the same time and first by name.
bool OlderThan(const json& a, const json& b);
void SortByCreation(std::vector<json>* rses);
// Largest first; equal sizes oldest first (for scaling down).
void SortBySizeOlder(std::vector<json>* rses);
// Largest first; equal sizes newest first (for scaling up).
void SortBySizeNewer(std::vector<json>* rses);

// The size the new ReplicaSet may grow to now: the deployment's replicas
// for Recreate; for a rolling update as far as maxSurge allows.
int64_t NewReplicaSetReplicas(const json& d, const std::vector<json>& all,
                              const json& new_rs);

// How many old pods a rolling update may remove now (the allowance
// reconcileOldReplicaSets starts from): total - minAvailable - the new
// ReplicaSet's unavailable pods.
int64_t MaxScaledDown(const json& d, const std::vector<json>& all,
                      const json& new_rs);

// The new ReplicaSet has all replicas, its desired-replicas annotation
// matches and every pod is available.
bool IsSaturated(const json& d, const std::optional<json>& rs);

// When only one ReplicaSet is active (or none), the one to hold every
// replica: that one, else the new one, else the newest old one.
std::optional<json> FindActiveOrLatest(const std::optional<json>& new_rs,
                                       std::vector<json> old_rses);

// The target sizes (by name) when a rolling deployment of several active
// ReplicaSets is scaled: the difference between spec.replicas + maxSurge
// and the current total is shared in proportion to each ReplicaSet's
// max-replicas annotation, leftovers going to the first (largest).
// `active` is sorted here. Empty when nothing changes.
std::map<std::string, int64_t> ProportionalSizes(const json& d,
                                                 std::vector<json>* active);

}  // namespace kmock::controllers::deployment

#endif  // KMOCK_CONTROLLERS_DEPLOYMENT_ROLLOUT_MATH_H_
