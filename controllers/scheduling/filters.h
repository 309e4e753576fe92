// kube-scheduler's filter plugins as pure functions, in its order:
// NodeUnschedulable, TaintToleration (a node that is not Ready counts as
// tainted node.kubernetes.io/not-ready:NoSchedule, as the node lifecycle
// controller would taint it), NodeAffinity (nodeSelector and required node
// affinity), NodeResourcesFit. Each returns the reasons a node does not fit,
// worded as kube-scheduler words them ("Insufficient cpu").
//
// Thread safety: pure functions over JSON values and their NodeInfo and
// PodInfo views.
#ifndef KMOCK_CONTROLLERS_SCHEDULING_FILTERS_H_
#define KMOCK_CONTROLLERS_SCHEDULING_FILTERS_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "controllers/scheduling/node_info.h"
#include "controllers/scheduling/resources.h"

namespace kmock::controllers::scheduling {

using nlohmann::json;

// Why a node was rejected. `resolvable`: evicting lower-priority pods could
// make room (kube-scheduler's Unschedulable), as opposed to
// UnschedulableAndUnresolvable (taints, affinity, cordoned nodes).
struct FilterFailure {
  std::vector<std::string> reasons;
  bool resolvable = false;
};

// Whether a toleration tolerates a taint (key, operator Equal/Exists,
// value, effect; an empty effect matches every effect).
bool Tolerates(const json& toleration, const json& taint);

// The node's taints plus the not-ready taint when its Ready condition is
// not True.
std::vector<json> EffectiveTaints(const json& node);

bool NodeIsReady(const json& node);

// Label requirement as in a NodeSelectorRequirement (In, NotIn, Exists,
// DoesNotExist, Gt, Lt) against a label map.
bool MatchesRequirement(const json& requirement, const json& labels);
// nodeSelector and requiredDuringSchedulingIgnoredDuringExecution.
bool MatchesNodeAffinity(const json& pod, const json& node);

std::optional<FilterFailure> CheckUnschedulable(const json& pod,
                                                const json& node);
std::optional<FilterFailure> CheckUnschedulable(const json& tolerations,
                                                bool unschedulable);
std::optional<FilterFailure> CheckTaints(const json& pod, const json& node);
// taints: the node's effective taints (EffectiveTaints).
std::optional<FilterFailure> CheckTaints(const json& tolerations,
                                         const std::vector<json>& taints);
std::optional<FilterFailure> CheckAffinity(const json& pod, const json& node);
// `used` is the sum of the requests of the pods already on the node.
std::optional<FilterFailure> CheckResources(const Resources& request,
                                            const Resources& allocatable,
                                            const Resources& used);

// Runs the filters in order and stops at the first failure.
std::optional<FilterFailure> RunFilters(const PodInfo& pod,
                                        const NodeInfo& node,
                                        const Resources& used);

}  // namespace kmock::controllers::scheduling

#endif  // KMOCK_CONTROLLERS_SCHEDULING_FILTERS_H_
