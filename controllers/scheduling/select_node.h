// One scheduling decision, as a pure function: filter every node, score the
// ones that fit (least requested, spread; untolerated PreferNoSchedule taints
// cost points), pick the best, breaking ties with the seeded Rng. When no
// node fits, the FailedScheduling message is worded as kube-scheduler's:
//
//   0/5 nodes are available: 1 node(s) had untolerated taint
//   {node-role.kubernetes.io/control-plane: }, 4 Insufficient cpu.
//   preemption: 0/5 nodes are available: 1 Preemption is not helpful for
//   scheduling, 4 No preemption victims found for incoming pod.
//
// Thread safety: pure functions (the Rng is itself thread-safe).
#ifndef KMOCK_CONTROLLERS_SCHEDULING_SELECT_NODE_H_
#define KMOCK_CONTROLLERS_SCHEDULING_SELECT_NODE_H_

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/rng.h"
#include "controllers/scheduling/filters.h"
#include "controllers/scheduling/resources.h"

namespace kmock::controllers::scheduling {

struct NodeState {
  // Shared with the informer's cache: a decision reads every node, and
  // copying each one's JSON per decision cost more than the decision.
  std::shared_ptr<const json> node;
  Resources used;              // sum of PodRequests of the pods on it
  Resources used_for_scoring;  // sum of PodRequestsForScoring
};

struct Decision {
  bool scheduled = false;
  std::string node;     // when scheduled
  std::string message;  // when not: the FailedScheduling message
};

// The score (0..100 per resource, averaged) of placing `pod` on `node`.
int64_t LeastRequestedScore(const json& pod, const NodeState& node);

// failures: node name -> why it was rejected.
std::string FitErrorMessage(
    size_t num_nodes, const std::map<std::string, FilterFailure>& failures,
    bool preemption_never);

// REQUIRES: rng may be null (ties then go to the first name in order).
Decision SelectNode(const json& pod, const std::vector<NodeState>& nodes,
                    Rng* rng);

}  // namespace kmock::controllers::scheduling

#endif  // KMOCK_CONTROLLERS_SCHEDULING_SELECT_NODE_H_
