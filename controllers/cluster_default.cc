#include "controllers/cluster.h"

namespace kmock::controllers {

const std::vector<std::string>& ControlPlaneComponents() {
  static const std::vector<std::string> kComponents = {
      "etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler",
      "cloud-controller-manager"};
  return kComponents;
}

std::string ClusterSpec::NodeRunning(std::string_view component) const {
  for (const auto& n : nodes) {
    for (const auto& c : n.components) {
      if (c == component) return n.name;
    }
  }
  return "";
}

namespace {

NodeSpec Manage(std::string name, std::string zone, std::string cidr,
                std::string ip, std::vector<std::string> components) {
  NodeSpec n;
  n.name = std::move(name);
  n.roles = {"control-plane"};
  n.components = std::move(components);
  n.capacity.cpu = "2";
  n.capacity.memory = "8Gi";
  n.capacity.ephemeral_storage = "50Gi";
  n.zone = std::move(zone);
  n.pod_cidr = std::move(cidr);
  n.internal_ip = std::move(ip);
  n.instance_type = "t3.large";
  return n;
}

NodeSpec Worker(std::string name, std::string zone, std::string cidr,
                std::string ip) {
  NodeSpec n;
  n.name = std::move(name);
  n.zone = std::move(zone);
  n.pod_cidr = std::move(cidr);
  n.internal_ip = std::move(ip);
  n.instance_type = "t3.xlarge";
  return n;
}

ClusterSpec MakeDefault() {
  ClusterSpec c;
  c.name = "kubemock";
  c.region = "us-east-1";
  NodeSpec m1 = Manage("manage-1", "us-east-1a", "10.244.0.0/24", "10.0.1.10",
                       {"etcd", "kube-apiserver"});
  m1.taints.push_back(
      {"node-role.kubernetes.io/control-plane", "", "NoSchedule"});
  c.nodes.push_back(std::move(m1));
  c.nodes.push_back(Manage("manage-2", "us-east-1b", "10.244.1.0/24",
                           "10.0.2.10",
                           {"kube-controller-manager", "kube-scheduler",
                            "cloud-controller-manager"}));
  c.nodes.push_back(
      Worker("worker-1", "us-east-1a", "10.244.2.0/24", "10.0.1.21"));
  c.nodes.push_back(
      Worker("worker-2", "us-east-1b", "10.244.3.0/24", "10.0.2.22"));
  c.nodes.push_back(
      Worker("worker-3", "us-east-1c", "10.244.4.0/24", "10.0.3.23"));
  return c;
}

}  // namespace

const ClusterSpec& DefaultCluster() {
  static const ClusterSpec kDefault = MakeDefault();
  return kDefault;
}

}  // namespace kmock::controllers
