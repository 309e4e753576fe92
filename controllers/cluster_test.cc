#include "controllers/cluster.h"

#include <gtest/gtest.h>

#include "common/rng.h"
#include "controllers/node_object.h"

namespace kmock::controllers {
namespace {

TEST(ClusterTest, DefaultClusterIsTheFiveNodesOfTheTour) {
  ClusterSpec c = DefaultCluster();
  ASSERT_TRUE(CompleteClusterSpec(&c).ok());
  ASSERT_EQ(c.nodes.size(), 5u);
  EXPECT_EQ(c.nodes[0].name, "manage-1");
  ASSERT_EQ(c.nodes[0].taints.size(), 1u);
  EXPECT_EQ(c.nodes[0].taints[0].key, "node-role.kubernetes.io/control-plane");
  EXPECT_TRUE(c.nodes[1].taints.empty());
  EXPECT_EQ(c.NodeRunning("etcd"), "manage-1");
  EXPECT_EQ(c.NodeRunning("kube-apiserver"), "manage-1");
  EXPECT_EQ(c.NodeRunning("kube-scheduler"), "manage-2");
  EXPECT_EQ(c.NodeRunning("cloud-controller-manager"), "manage-2");
  EXPECT_EQ(c.nodes[4].name, "worker-3");
}

TEST(ClusterTest, ParsesYamlWithDefaults) {
  auto c = ParseClusterSpec(R"(
name: lab
pacing: {pullMs: 1500, jitter: 0.25}
nodes:
  - name: cp
    roles: [control-plane]
    taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]
    capacity: {cpu: 2, memory: 4Gi}
  - name: w1
    labels: {disk: ssd}
)");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->name, "lab");
  EXPECT_EQ(c->pacing.pull.count(), 1500);
  EXPECT_DOUBLE_EQ(c->pacing.jitter, 0.25);
  EXPECT_EQ(c->nodes[0].capacity.cpu, "2");
  EXPECT_EQ(c->nodes[0].capacity.memory, "4Gi");
  EXPECT_EQ(c->nodes[1].labels.at("disk"), "ssd");
  EXPECT_EQ(c->nodes[1].pod_cidr, "10.244.1.0/24");
  EXPECT_EQ(c->nodes[1].zone, "us-east-1b");
  // No placement given: the control plane goes on the control-plane node.
  EXPECT_EQ(c->NodeRunning("etcd"), "cp");
  EXPECT_EQ(c->NodeRunning("kube-scheduler"), "cp");
}

TEST(ClusterTest, IngressControllersTakeDefaults) {
  auto c = ParseClusterSpec(R"(
nodes: [{name: solo}]
ingressControllers:
  - default: true
  - className: internal
    namespace: ingress-internal
    controller: example.com/internal
)");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->ingress_controllers.size(), 2u);
  const IngressControllerSpec& nginx = c->ingress_controllers[0];
  EXPECT_EQ(nginx.class_name, "nginx");
  EXPECT_EQ(nginx.controller, "k8s.io/ingress-nginx");
  EXPECT_EQ(nginx.ns, "ingress-nginx");
  EXPECT_TRUE(nginx.default_class);
  EXPECT_EQ(c->ingress_controllers[1].ns, "ingress-internal");
  EXPECT_FALSE(c->ingress_controllers[1].default_class);
  EXPECT_TRUE(DefaultCluster().ingress_controllers.empty());
}

TEST(ClusterTest, ParsesJson) {
  auto c = ParseClusterSpec(R"({"nodes": [{"name": "solo"}]})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->NodeRunning("kube-apiserver"), "solo");
}

TEST(ClusterTest, DefaultAddressesStayUniqueForFiveThousandNodes) {
  std::string text = "nodes:\n";
  for (int i = 0; i < 5000; ++i) text += "- name: n" + std::to_string(i) + "\n";
  auto c = ParseClusterSpec(text);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->nodes.size(), 5000u);
  // The first nodes keep the usual addresses.
  EXPECT_EQ(c->nodes[0].pod_cidr, "10.244.0.0/24");
  EXPECT_EQ(c->nodes[0].internal_ip, "10.0.1.10");
  EXPECT_EQ(c->nodes[255].pod_cidr, "10.244.255.0/24");
  EXPECT_EQ(c->nodes[256].pod_cidr, "10.128.0.0/24");
  EXPECT_EQ(c->nodes[4999].pod_cidr, "10.146.135.0/24");
  EXPECT_EQ(c->nodes[4999].internal_ip, "10.16.19.136");
}

TEST(ClusterTest, BadInputGivesClearErrors) {
  struct Case {
    const char* text;
    const char* error;
  } cases[] = {
      {"nodes: [", "cluster file is not valid YAML or JSON: line"},
      {"- a", "the top level must be a mapping"},
      {"name: x", "nodes: required: a list of nodes"},
      {"nodes: [{name: a, colour: red}]", "nodes[0].colour: unknown field"},
      {"nodes: [{name: a, taints: [{key: k, effect: NoScheduel}]}]",
       "nodes[0].taints[0].effect: unsupported value \"NoScheduel\""},
      {"nodes: [{name: a}, {name: a}]",
       "nodes[1].name: duplicate node name \"a\""},
      {"nodes: [{name: Bad_Name}]",
       "nodes[0].name: invalid value \"Bad_Name\""},
      {"nodes: [{name: a, podCIDR: 10.0.0.0}]",
       "nodes[0].podCIDR: invalid pod CIDR"},
      {"nodes: [{name: a, capacity: {cpu: lots}}]",
       "nodes[0].capacity.cpu: invalid quantity \"lots\""},
      {"nodes: [{name: a, components: [etcd]}, {name: b, components: [etcd]}]",
       "nodes[1].components: \"etcd\" already runs on a"},
      {"pacing: {pullMs: -1}\nnodes: [{name: a}]",
       "pacing.pullMs: must be a non-negative whole number"},
      {"nodes: [{name: a}]\ningressControllers: {className: nginx}",
       "ingressControllers: must be a list"},
      {"nodes: [{name: a}]\ningressControllers: [{className: Nginx_1}]",
       "ingressControllers[0].className: must be a DNS subdomain name"},
      {"nodes: [{name: a}]\ningressControllers: [{}, {namespace: other}]",
       "ingressControllers[1].className: duplicate value \"nginx\""},
      {"nodes: [{name: a}]\ningressControllers: [{}, {className: b}]",
       "ingressControllers[1].namespace: duplicate value \"ingress-nginx\""},
      {"nodes: [{name: a}]\ningressControllers: [{default: yes}]",
       "ingressControllers[0].default: must be true or false"},
      {"nodes: [{name: a}]\ningressControllers: [{port: 80}]",
       "ingressControllers[0].port: unknown field"},
  };
  for (const auto& c : cases) {
    auto r = ParseClusterSpec(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.error), std::string::npos)
        << c.text << " -> " << r.status().message();
  }
}

TEST(NodeObjectTest, LabelsTaintsAndStatus) {
  ClusterSpec c = DefaultCluster();
  ASSERT_TRUE(CompleteClusterSpec(&c).ok());
  Rng rng(1);
  auto node = BuildNode(c, c.nodes[0], &rng);
  const auto& labels = node["metadata"]["labels"];
  EXPECT_EQ(labels["node-role.kubernetes.io/control-plane"], "");
  EXPECT_EQ(labels["topology.kubernetes.io/zone"], "us-east-1a");
  EXPECT_EQ(labels["kubernetes.io/hostname"], "manage-1");
  EXPECT_EQ(node["spec"]["taints"][0]["effect"], "NoSchedule");
  std::string provider = node["spec"]["providerID"];
  EXPECT_EQ(provider.rfind("aws:///us-east-1a/i-", 0), 0u);
  EXPECT_EQ(provider.size(), std::string("aws:///us-east-1a/i-").size() + 17);
  auto status = BuildNodeStatus(
      c.nodes[2], "v1.33.1", std::chrono::system_clock::from_time_t(0), &rng);
  EXPECT_EQ(status["capacity"]["memory"], "16777216Ki");
  EXPECT_EQ(status["allocatable"]["memory"], "16674816Ki");
  EXPECT_EQ(status["capacity"]["cpu"], "4");
  EXPECT_EQ(status["nodeInfo"]["kubeletVersion"], "v1.33.1");
  EXPECT_EQ(status["conditions"][3]["type"], "Ready");
  EXPECT_EQ(status["conditions"][3]["status"], "True");
  EXPECT_EQ(status["addresses"][0]["address"], "10.0.1.21");
}

}  // namespace
}  // namespace kmock::controllers
