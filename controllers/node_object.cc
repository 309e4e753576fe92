#include "controllers/node_object.h"

#include <algorithm>

#include "controllers/quantity.h"

namespace kmock::controllers {

using nlohmann::json;

namespace {

// Memory the kubelet holds back (the default hard eviction threshold).
constexpr int64_t kEvictionReserveKi = 100 * 1024;

std::string Ki(int64_t bytes) { return std::to_string(bytes / 1024) + "Ki"; }

int64_t Bytes(const std::string& q) {
  auto v = ParseValue(json(q));
  return v.ok() ? *v : 0;
}

}  // namespace

json BuildNode(const ClusterSpec& cluster, const NodeSpec& node, Rng* rng) {
  json labels = {
      {"beta.kubernetes.io/arch", "amd64"},
      {"beta.kubernetes.io/os", "linux"},
      {"beta.kubernetes.io/instance-type", node.instance_type},
      {"failure-domain.beta.kubernetes.io/region", cluster.region},
      {"failure-domain.beta.kubernetes.io/zone", node.zone},
      {"kubernetes.io/arch", "amd64"},
      {"kubernetes.io/hostname", node.name},
      {"kubernetes.io/os", "linux"},
      {"node.kubernetes.io/instance-type", node.instance_type},
      {"topology.kubernetes.io/region", cluster.region},
      {"topology.kubernetes.io/zone", node.zone},
  };
  for (const auto& r : node.roles) labels["node-role.kubernetes.io/" + r] = "";
  if (std::find(node.roles.begin(), node.roles.end(), "control-plane") !=
      node.roles.end()) {
    labels["node.kubernetes.io/exclude-from-external-load-balancers"] = "";
  }
  for (const auto& [k, v] : node.labels) labels[k] = v;
  json spec = {{"podCIDR", node.pod_cidr},
               {"podCIDRs", json::array({node.pod_cidr})},
               {"providerID", "aws:///" + node.zone + "/i-" + rng->Hex(17)}};
  if (!node.taints.empty()) {
    json taints = json::array();
    for (const auto& t : node.taints) {
      json tj = {{"key", t.key}, {"effect", t.effect}};
      if (!t.value.empty()) tj["value"] = t.value;
      taints.push_back(tj);
    }
    spec["taints"] = taints;
  }
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", node.name},
            {"labels", labels},
            {"annotations",
             {{"node.alpha.kubernetes.io/ttl", "0"},
              {"volumes.kubernetes.io/controller-managed-attach-detach",
               "true"}}}}},
          {"spec", spec}};
}

json HealthyNodeConditions(const std::string& heartbeat,
                           const std::string& transition) {
  struct C {
    const char* type;
    const char* status;
    const char* reason;
    const char* message;
  } conds[] = {
      {"MemoryPressure", "False", "KubeletHasSufficientMemory",
       "kubelet has sufficient memory available"},
      {"DiskPressure", "False", "KubeletHasNoDiskPressure",
       "kubelet has no disk pressure"},
      {"PIDPressure", "False", "KubeletHasSufficientPID",
       "kubelet has sufficient PID available"},
      {"Ready", "True", "KubeletReady", "kubelet is posting ready status"},
  };
  json out = json::array();
  for (const auto& c : conds) {
    out.push_back({{"type", c.type},
                   {"status", c.status},
                   {"lastHeartbeatTime", heartbeat},
                   {"lastTransitionTime", transition},
                   {"reason", c.reason},
                   {"message", c.message}});
  }
  return out;
}

json BuildNodeStatus(const NodeSpec& node, const std::string& version,
                     TimePoint now, Rng* rng) {
  int64_t mem = Bytes(node.capacity.memory);
  int64_t disk = Bytes(node.capacity.ephemeral_storage);
  json capacity = {{"cpu", node.capacity.cpu}, {"ephemeral-storage", Ki(disk)},
                   {"hugepages-1Gi", "0"},     {"hugepages-2Mi", "0"},
                   {"memory", Ki(mem)},        {"pods", node.capacity.pods}};
  json allocatable = capacity;
  allocatable["memory"] =
      std::to_string(mem / 1024 - kEvictionReserveKi) + "Ki";
  // The default nodefs.available<10% threshold.
  allocatable["ephemeral-storage"] = std::to_string(disk / 10 * 9);
  std::string t = FormatRfc3339(now);
  std::string kernel = node.kernel_version;
  return {
      {"capacity", capacity},
      {"allocatable", allocatable},
      {"conditions", HealthyNodeConditions(t, t)},
      {"addresses",
       json::array({{{"type", "InternalIP"}, {"address", node.internal_ip}},
                    {{"type", "Hostname"}, {"address", node.name}}})},
      {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
      {"nodeInfo",
       {{"machineID", rng->Hex(32)},
        {"systemUUID", "ec2" + rng->Hex(5) + "-" + rng->Hex(4) + "-" +
                           rng->Hex(4) + "-" + rng->Hex(4) + "-" +
                           rng->Hex(12)},
        {"bootID", rng->Uuid()},
        {"kernelVersion", kernel},
        {"osImage", node.os_image},
        {"containerRuntimeVersion", node.container_runtime_version},
        {"kubeletVersion", version},
        {"kubeProxyVersion", version},
        {"operatingSystem", "linux"},
        {"architecture", "amd64"}}},
  };
}

}  // namespace kmock::controllers
