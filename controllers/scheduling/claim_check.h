// kube-scheduler's VolumeBinding plugin, the part this cluster needs: a
// pod's PersistentVolumeClaims decide whether it can be scheduled at all
// (PreFilter: a missing or deleted claim, or an unbound claim of an
// Immediate class, stops it on every node) and which claims wait for the
// node the scheduler picks (unbound claims of a WaitForFirstConsumer
// class: the scheduler annotates them with the node, and binds the pod
// once the volume controller has bound them).
//
// Thread safety: pure functions (the lookups must be safe to call).
#ifndef KMOCK_CONTROLLERS_SCHEDULING_CLAIM_CHECK_H_
#define KMOCK_CONTROLLERS_SCHEDULING_CLAIM_CHECK_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kmock::controllers::scheduling {

using nlohmann::json;

struct ClaimsVerdict {
  // Why the pod fits no node ("" when claims allow it).
  std::string refusal;
  // Claims (names, in the pod's namespace) that wait for a node.
  std::vector<std::string> delayed;
};

// Whether the pod has any persistentVolumeClaim volume (cheap).
bool UsesClaims(const json& pod);

// `claim` returns the claim of that name in the pod's namespace (null when
// absent), `binding_mode` a class's volumeBindingMode (nullopt when the
// class does not exist).
ClaimsVerdict CheckPodClaims(
    const json& pod,
    const std::function<std::optional<json>(const std::string& name)>& claim,
    const std::function<std::optional<std::string>(const std::string& name)>&
        binding_mode);

// The pod with `expressions` (NodeSelectorRequirements) added to every
// term of its required node affinity (one term made when it has none): how
// the node affinity of the volumes its bound claims use constrains it.
json WithRequiredNodeExpressions(json pod, const json& expressions);

// The FailedScheduling message of a PreFilter refusal over `nodes` nodes.
std::string PreFilterMessage(size_t nodes, const std::string& refusal);

}  // namespace kmock::controllers::scheduling

#endif  // KMOCK_CONTROLLERS_SCHEDULING_CLAIM_CHECK_H_
