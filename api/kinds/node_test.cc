#include "api/kinds/node.h"

#include <gtest/gtest.h>

#include "api/builtin_catalog.h"

namespace kmock::api::kinds {
namespace {

TimePoint At(const std::string& ts) {
  TimePoint t;
  EXPECT_TRUE(ParseRfc3339(ts, &t));
  return t;
}

json Node() {
  return json::parse(R"({
    "metadata": {"name": "n1", "creationTimestamp": "2024-05-01T00:00:00Z",
      "labels": {"node-role.kubernetes.io/control-plane": "",
                 "node-role.kubernetes.io/": "",
                 "kubernetes.io/role": "worker"}},
    "spec": {},
    "status": {"conditions": [{"type": "Ready", "status": "True"}],
      "addresses": [{"type": "InternalIP", "address": "172.18.0.2"},
                    {"type": "Hostname", "address": "n1"}],
      "nodeInfo": {"kubeletVersion": "v1.33.1", "osImage": "Debian",
                   "kernelVersion": "6.1.0", "containerRuntimeVersion": "containerd://1.7"}}
  })");
}

TEST(NodeTableTest, ReadyWithRoles) {
  auto cells = testing::RowOf("", "nodes", Node(), At("2024-05-03T00:00:00Z"));
  EXPECT_EQ(cells, (std::vector<json>{"n1", "Ready", "control-plane,worker",
                                      "2d", "v1.33.1", "172.18.0.2", "<none>",
                                      "Debian", "6.1.0", "containerd://1.7"}));
  EXPECT_EQ(testing::ColumnsOf("", "nodes").size(), cells.size());
}

TEST(NodeTableTest, StatusVariants) {
  json n = Node();
  n["status"]["conditions"][0]["status"] = "False";
  n["spec"]["unschedulable"] = true;
  EXPECT_EQ(testing::RowOf("", "nodes", n, At("2024-05-03T00:00:00Z"))[1],
            "NotReady,SchedulingDisabled");
  n["status"].erase("conditions");
  n["spec"].erase("unschedulable");
  n["metadata"].erase("labels");
  n["status"].erase("nodeInfo");
  auto cells = testing::RowOf("", "nodes", n, At("2024-05-03T00:00:00Z"));
  EXPECT_EQ(cells[1], "Unknown");
  EXPECT_EQ(cells[2], "<none>");
  EXPECT_EQ(cells[7], "<unknown>");
}

TEST(NodeFieldsTest, Unschedulable) {
  json n = Node();
  auto fields = NodeSelectableFields();
  ASSERT_EQ(fields.size(), 1u);
  EXPECT_EQ(fields[0].value(n), "false");
  n["spec"]["unschedulable"] = true;
  EXPECT_EQ(fields[0].value(n), "true");
}

TEST(NodeStrategyTest, UpdateKeepsStatusAndStatusKeepsSpec) {
  json old = Node();
  json upd = old;
  upd["status"]["conditions"][0]["status"] = "False";
  upd["spec"]["unschedulable"] = true;
  NodeStrategy()->PrepareForUpdate(upd, old);
  EXPECT_EQ(upd["status"], old["status"]);
  EXPECT_TRUE(upd["spec"]["unschedulable"].get<bool>());

  json st = old;
  st["status"]["conditions"][0]["status"] = "False";
  st["spec"]["unschedulable"] = true;
  NodeStatusStrategy()->PrepareForUpdate(st, old);
  EXPECT_EQ(st["spec"], old["spec"]);
  EXPECT_EQ(st["status"]["conditions"][0]["status"], "False");
}

TEST(NodeStrategyTest, TaintValidation) {
  json n = Node();
  n["spec"]["taints"] = {{{"key", "k"}, {"effect", "Sometimes"}}};
  FieldErrors errs;
  NodeStrategy()->Validate(n, &errs);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs.causes()[0].field, "spec.taints[0].effect");
  EXPECT_EQ(errs.causes()[0].message,
            "Unsupported value: \"Sometimes\": supported values: "
            "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"");
}

TEST(NodeStrategyTest, AllocatableDefaultsToCapacity) {
  json n = Node();
  n["status"]["capacity"] = {{"cpu", "4"}};
  NodeStrategy()->Default(n);
  EXPECT_EQ(n["status"]["allocatable"], n["status"]["capacity"]);
}

}  // namespace
}  // namespace kmock::api::kinds
