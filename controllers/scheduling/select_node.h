// One scheduling decision, as a pure function: filter the nodes, score the
// ones that fit (least requested, spread; untolerated PreferNoSchedule taints
// cost points), pick the best, breaking ties with the seeded Rng. As
// kube-scheduler does, a cluster of 100 nodes or more is searched only until
// enough nodes fit (NumFeasibleNodesToFind: its adaptive
// percentageOfNodesToScore), starting where the previous search stopped, so
// that every node gets its turn. When no node fits, the FailedScheduling
// message is worded as kube-scheduler's:
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
#include "controllers/scheduling/node_info.h"
#include "controllers/scheduling/resources.h"

namespace kmock::controllers::scheduling {

struct NodeState {
  // Kept by the scheduler per node revision: a decision reads many nodes,
  // and parsing each one's JSON per decision cost more than the decision.
  std::shared_ptr<const NodeInfo> info;
  Resources used;              // sum of PodRequests of the pods on it
  Resources used_for_scoring;  // sum of PodRequestsForScoring
};

struct Decision {
  bool scheduled = false;
  std::string node;     // when scheduled
  std::string message;  // when not: the FailedScheduling message
  // Nodes filtered: where the next search starts is this far on.
  size_t processed = 0;
};

// How many fitting nodes end the search in a cluster of `all_nodes`: all of
// them below 100 nodes, else 50% minus one point per 125 nodes (at least
// 5%), but never fewer than 100.
size_t NumFeasibleNodesToFind(size_t all_nodes);

// The score (0..100 per resource, averaged) of placing `pod` on `node`.
int64_t LeastRequestedScore(const PodInfo& pod, const NodeState& node);

// failures: node name -> why it was rejected.
std::string FitErrorMessage(
    size_t num_nodes, const std::map<std::string, FilterFailure>& failures,
    bool preemption_never);

// nodes: in name order; the search starts at nodes[start % size] and wraps.
// REQUIRES: rng may be null (ties then go to the first name in order).
Decision SelectNode(const json& pod, const std::vector<NodeState>& nodes,
                    Rng* rng, size_t start = 0);

}  // namespace kmock::controllers::scheduling

#endif  // KMOCK_CONTROLLERS_SCHEDULING_SELECT_NODE_H_
