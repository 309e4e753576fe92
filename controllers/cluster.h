// The cluster's topology: which nodes exist, what they look like, where the
// control plane runs, and how fast pods move through their lives.
//
// clang-format off
// kubemock serves DefaultCluster() unless `--cluster FILE` names a file in
// this format (YAML, or JSON, which is YAML too); every field but the node
// names is optional and defaults as in the default cluster:
//
//   name: classroom
//   region: us-east-1
//   pacing:            # milliseconds per lifecycle step; jitter a fraction
//     sandboxMs: 500
//     pullMs: 2000
//     createMs: 200
//     startMs: 300
//     initRunMs: 1000
//     readyMs: 500
//     killMs: 1000
//     removeMs: 200
//     syncMs: 60000    # each kubelet's pod sync: volume updates land then
//     jitter: 0.2
//   nodes:
//     - name: manage-1
//       roles: [control-plane]      # adds node-role.kubernetes.io/<role>=""
//       components: [etcd, kube-apiserver]
//       labels: {disk: ssd}
//       taints:
//         - {key: node-role.kubernetes.io/control-plane, effect: NoSchedule}
//       capacity: {cpu: "2", memory: 8Gi, pods: "110"}
//       zone: us-east-1a
//       podCIDR: 10.244.0.0/24
//       internalIP: 10.0.1.10
//       instanceType: t3.large
//       osImage: Ubuntu 22.04.4 LTS
//       kernelVersion: 5.15.0-1061-aws
//       containerRuntimeVersion: containerd://1.7.27
//   ingressControllers:             # none by default, as on kubeadm
//     - className: nginx            # its IngressClass
//       controller: k8s.io/ingress-nginx
//       namespace: ingress-nginx    # holds <namespace>-controller
//       image: registry.k8s.io/ingress-nginx/controller:v1.12.1
//       default: true               # the cluster's default IngressClass
//
// components places the control plane: etcd, kube-apiserver,
// kube-scheduler, kube-controller-manager, cloud-controller-manager. When no
// node names any, all of them go on the first control-plane node (or the
// first node).
//
// Thread safety: plain values; DefaultCluster() is immutable.
// clang-format on
#ifndef KMOCK_CONTROLLERS_CLUSTER_H_
#define KMOCK_CONTROLLERS_CLUSTER_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "controllers/lifecycle/pacing.h"

namespace kmock::controllers {

struct TaintSpec {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
};

struct NodeCapacity {
  std::string cpu = "4";
  std::string memory = "16Gi";
  std::string pods = "110";
  std::string ephemeral_storage = "100Gi";
};

struct NodeSpec {
  std::string name;
  std::vector<std::string> roles;
  std::vector<std::string> components;
  std::map<std::string, std::string> labels;
  std::vector<TaintSpec> taints;
  NodeCapacity capacity;
  std::string zone;
  std::string pod_cidr;
  std::string internal_ip;
  std::string instance_type;
  std::string os_image = "Ubuntu 22.04.4 LTS";
  std::string kernel_version = "5.15.0-1061-aws";
  std::string container_runtime_version = "containerd://1.7.27";
};

// An ingress controller the cluster runs (ingress/ingress_controller.h):
// its IngressClass, and a Deployment and a LoadBalancer Service named
// "<namespace>-controller" whose address its Ingresses get.
struct IngressControllerSpec {
  std::string class_name = "nginx";
  std::string controller = "k8s.io/ingress-nginx";
  std::string ns = "ingress-nginx";
  std::string image = "registry.k8s.io/ingress-nginx/controller:v1.12.1";
  bool default_class = false;
};

struct ClusterSpec {
  std::string name = "kubemock";
  std::string region = "us-east-1";
  std::vector<NodeSpec> nodes;
  std::vector<IngressControllerSpec> ingress_controllers;
  lifecycle::StagePacing pacing;

  // The node that runs a control-plane component ("" if none does).
  std::string NodeRunning(std::string_view component) const;
};

// The control-plane components in start order.
const std::vector<std::string>& ControlPlaneComponents();

// manage-1 (etcd, kube-apiserver; tainted control-plane:NoSchedule),
// manage-2 (kube-scheduler, kube-controller-manager,
// cloud-controller-manager; control-plane role, no taint), worker-1..3.
const ClusterSpec& DefaultCluster();

// Parses the format above and fills defaults. Errors are kInvalid with the
// path of the offending field: `nodes[1].taints[0].effect: unsupported
// value "NoScheduel": supported values: "NoSchedule", ...`.
Result<ClusterSpec> ParseClusterSpec(std::string_view text);
Result<ClusterSpec> LoadClusterFile(const std::string& path);

// Fills node defaults (zone, CIDR, IP, instance type, placement) and checks
// the whole spec: unique names, DNS-1123 names, CIDRs, quantities.
Status CompleteClusterSpec(ClusterSpec* spec);

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_CLUSTER_H_
