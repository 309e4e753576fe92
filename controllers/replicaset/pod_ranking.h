// Which pods a ReplicaSet deletes first when it has too many: the order of
// kube-controller-manager's ActivePodsWithRanks with the LogarithmicScaleDown
// and PodDeletionCost gates on (their default):
//
//   1. unscheduled before scheduled
//   2. Pending before Unknown before Running
//   3. not ready before ready
//   4. lower controller.kubernetes.io/pod-deletion-cost first
//   5. more related pods on the same node first
//   6. both ready: ready for less time first (log2 buckets of age)
//   7. more container restarts first
//   8. newer first (log2 buckets of age), ties broken by uid
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_CONTROLLERS_REPLICASET_POD_RANKING_H_
#define KMOCK_CONTROLLERS_REPLICASET_POD_RANKING_H_

#include <nlohmann/json.hpp>
#include <vector>

#include "common/clock.h"

namespace kmock::controllers::replicaset {

using nlohmann::json;

struct RankedPod {
  const json* pod;
  int rank = 0;  // related active pods on the same node
};

// True when a should be deleted before b.
bool DeleteBefore(const RankedPod& a, const RankedPod& b, TimePoint now);

// The `count` pods of `pods` to delete, best candidates first. `related`
// are the active pods of the ReplicaSet's siblings (same controller owner)
// and its own, used to count pods doubled up on a node.
std::vector<json> PodsToDelete(const std::vector<json>& pods,
                               const std::vector<json>& related, size_t count,
                               TimePoint now);

}  // namespace kmock::controllers::replicaset

#endif  // KMOCK_CONTROLLERS_REPLICASET_POD_RANKING_H_
