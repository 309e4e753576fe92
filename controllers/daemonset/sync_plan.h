// What one sync of a DaemonSet does, decided from the nodes and the pods
// the DaemonSet owns (pure, as kube-controller-manager's DaemonSet
// controller decides it):
// - ManageNodes: a pod for every node that should run one and has none;
//   failed and succeeded pods replaced; surplus pods on a node deleted
//   (all but the oldest; with maxSurge, an updated pod and a ready old one
//   may share a node while the new one starts); pods on nodes they no
//   longer belong on deleted.
// - RollingUpdate: old pods replaced within maxUnavailable (delete, then
//   the next ManageNodes creates) or maxSurge (create beside, delete the
//   old one once the new one is available), both scaled against the nodes
//   that should run a pod, percentages rounded up.
// - Status: desired, current, misscheduled, ready, updated, available and
//   unavailable counts.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_CONTROLLERS_DAEMONSET_SYNC_PLAN_H_
#define KMOCK_CONTROLLERS_DAEMONSET_SYNC_PLAN_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/clock.h"
#include "controllers/daemonset/node_fit.h"

namespace kmock::controllers::daemonset {

// A node and the DaemonSet's pods for it (spec.nodeName or the node
// affinity), leaving out terminal pods already being deleted, scheduled
// pods first, then oldest first.
struct NodeState {
  std::string name;
  NodeFit fit;
  std::vector<const json*> pods;
};

struct Plan {
  std::vector<std::string> create_on;  // node names
  std::vector<const json*> delete_pods;
  // Failed pods to delete (after the controller's back-off for the node).
  std::vector<const json*> failed_pods;
};

// Sorts pods as NodeState keeps them.
void SortDaemonPods(std::vector<const json*>* pods);

// Whether the pod was made from the current template (its hash label is
// `hash`, or its pod-template-generation label is the DaemonSet's template
// generation).
bool IsPodUpdated(const json& ds, const json& pod, const std::string& hash);

// maxSurge (0 for OnDelete or a rolling update without surge).
bool AllowsSurge(const json& ds);

Plan ManageNodes(const json& ds, const std::vector<NodeState>& nodes,
                 const std::string& hash);
Plan RollingUpdate(const json& ds, const std::vector<NodeState>& nodes,
                   const std::string& hash, TimePoint now);

// The status fields the controller writes (not observedGeneration nor
// collisionCount).
json ComputeStatus(const json& ds, const std::vector<NodeState>& nodes,
                   const std::string& hash, TimePoint now);

// An int-or-percent against `total` (percent rounded up when round_up).
int64_t ScaledValue(const json& v, int64_t total, bool round_up);

}  // namespace kmock::controllers::daemonset

#endif  // KMOCK_CONTROLLERS_DAEMONSET_SYNC_PLAN_H_
