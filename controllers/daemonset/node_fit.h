// Which nodes a DaemonSet's pods belong on, as kube-controller-manager's
// DaemonSet controller decides it (NodeShouldRunDaemonPod), and the pod it
// makes for a node: the template with the tolerations every daemon pod
// gets (not-ready and unreachable NoExecute; disk-, memory- and
// pid-pressure and unschedulable NoSchedule; network-unavailable for
// host-network pods) and its required node affinity replaced by one term
// naming the node (matchFields metadata.name), which the scheduler binds.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_CONTROLLERS_DAEMONSET_NODE_FIT_H_
#define KMOCK_CONTROLLERS_DAEMONSET_NODE_FIT_H_

#include <nlohmann/json.hpp>
#include <string>

namespace kmock::controllers::daemonset {

using nlohmann::json;

inline constexpr char kRevisionHashLabel[] = "controller-revision-hash";
inline constexpr char kTemplateGenerationLabel[] = "pod-template-generation";

struct NodeFit {
  // A pod should be made here when there is none.
  bool should_run = false;
  // A pod already here may stay (its node only keeps new pods away with
  // NoSchedule taints the pod does not tolerate).
  bool should_continue_running = false;
};

// Adds the daemon pod tolerations to a pod spec, replacing a toleration of
// the same key, operator, value and effect.
void AddDaemonTolerations(json* pod_spec);

// Whether the DaemonSet's pods belong on `node`: the template's nodeName
// (if any), nodeSelector and required node affinity must match; untolerated
// NoSchedule taints keep new pods away, untolerated NoExecute taints also
// the pods already there.
NodeFit ShouldRunOnNode(const json& ds, const json& node);
// The same in two steps, for a sync that looks at every node: the
// template's pod with the daemon tolerations, made once, then its fit on
// each node.
json DaemonPodForFit(const json& ds);
NodeFit FitOnNode(const json& daemon_pod, const json& node);

// The pod the DaemonSet makes for `node`: its template's metadata and spec,
// labels plus controller-revision-hash and pod-template-generation, the
// daemon tolerations and the node affinity naming the node; generateName
// "<ds>-" and the DaemonSet as controller (`owner_ref`).
json NewDaemonPod(const json& ds, const std::string& node,
                  const std::string& revision_hash, const json& owner_ref);

// The node a daemon pod is for: spec.nodeName, or else the one value of a
// matchFields metadata.name requirement of its required node affinity ("" if
// none).
std::string TargetNode(const json& pod);

}  // namespace kmock::controllers::daemonset

#endif  // KMOCK_CONTROLLERS_DAEMONSET_NODE_FIT_H_
