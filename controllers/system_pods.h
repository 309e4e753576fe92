// The cluster's own pods in kube-system, as a kubeadm cluster on AWS runs
// them: the control plane as static (mirror) pods named <component>-<node>
// (etcd, kube-apiserver, kube-controller-manager, kube-scheduler), owned by
// their Node; the AWS cloud-controller-manager's DaemonSet
// (aws-cloud-controller-manager-<suffix>); and kubeadm's kube-proxy
// DaemonSet (kube-proxy-<suffix> on every node). Every one is on the host
// network, preset to its node (spec.nodeName), at system priority.
//
// Thread safety: pure functions (the Rng is itself thread-safe).
#ifndef KMOCK_CONTROLLERS_SYSTEM_PODS_H_
#define KMOCK_CONTROLLERS_SYSTEM_PODS_H_

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/rng.h"
#include "controllers/cluster.h"

namespace kmock::controllers {

inline constexpr char kKubeProxyApp[] = "kube-proxy";
inline constexpr char kCloudControllerApp[] = "aws-cloud-controller-manager";

// A static control-plane pod for `component` on `node`. node_uid makes the
// Node its owner (as for a mirror pod).
nlohmann::json BuildStaticPod(const std::string& component,
                              const NodeSpec& node, const std::string& node_uid,
                              const std::string& version, TimePoint now,
                              Rng* rng);
// kubeadm's kube-proxy DaemonSet in kube-system.
nlohmann::json BuildKubeProxyDaemonSet(const std::string& version);
// The AWS cloud-controller-manager's DaemonSet in kube-system.
nlohmann::json BuildCloudControllerDaemonSet(const ClusterSpec& cluster,
                                             const std::string& version);
// The pod of a system DaemonSet (`ds` as stored, with its template
// generation) on `node`, as the DaemonSet controller makes it
// (daemonset/node_fit.h), named and bound at once so that it starts with
// the cluster: `owner` is its controller reference (null: none).
nlohmann::json BuildSystemDaemonPod(const nlohmann::json& ds,
                                    const NodeSpec& node,
                                    const nlohmann::json& owner, Rng* rng);

// Every image the system pods use (pre-loaded on each node).
std::vector<std::string> SystemImages(const std::string& version);

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_SYSTEM_PODS_H_
