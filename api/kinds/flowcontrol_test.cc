// FlowSchema Table order and the conversions of the older flowcontrol
// versions.
#include "api/kinds/flowcontrol.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace kmock::api::kinds {
namespace {

using nlohmann::json;

json FlowSchemaNamed(const std::string& name, std::optional<int> precedence) {
  json fs = {{"metadata", {{"name", name}}}, {"spec", json::object()}};
  if (precedence) fs["spec"]["matchingPrecedence"] = *precedence;
  return fs;
}

TEST(FlowSchemaOrderTest, ByMatchingPrecedenceThenName) {
  std::vector<json> schemas = {
      FlowSchemaNamed("global-default", 9900),
      FlowSchemaNamed("probes", 2),
      FlowSchemaNamed("zz-unset", std::nullopt),  // 1000, the default
      FlowSchemaNamed("exempt", 1),
      FlowSchemaNamed("catch-all", 10000),
      FlowSchemaNamed("aa-same", 1000),
      FlowSchemaNamed("system-nodes", 500)};
  std::stable_sort(schemas.begin(), schemas.end(), FlowSchemaPrecedenceLess);
  std::vector<std::string> names;
  for (const json& s : schemas) names.push_back(s["metadata"]["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"exempt", "probes", "system-nodes",
                                             "aa-same", "zz-unset",
                                             "global-default", "catch-all"}));
}

TEST(FlowcontrolConversionTest, OlderVersionsServeTheStoredObject) {
  const json stored = {
      {"apiVersion", "flowcontrol.apiserver.k8s.io/v1"},
      {"kind", "PriorityLevelConfiguration"},
      {"metadata", {{"name", "workload-low"}}},
      {"spec",
       {{"type", "Limited"},
        {"limited",
         {{"nominalConcurrencyShares", 100}, {"lendablePercent", 90}}}}}};
  json v1beta3 =
      FlowcontrolFromStorage(stored, "flowcontrol.apiserver.k8s.io/v1beta3");
  EXPECT_EQ(v1beta3["apiVersion"], "flowcontrol.apiserver.k8s.io/v1beta3");
  EXPECT_EQ(v1beta3["spec"], stored["spec"]);
  EXPECT_EQ(FlowcontrolToStorage(v1beta3), stored);

  json v1beta2 = PriorityLevelV1beta2FromStorage(stored);
  EXPECT_EQ(v1beta2["apiVersion"], "flowcontrol.apiserver.k8s.io/v1beta2");
  EXPECT_EQ(v1beta2["spec"]["limited"],
            json({{"assuredConcurrencyShares", 100}, {"lendablePercent", 90}}));
  EXPECT_EQ(PriorityLevelV1beta2ToStorage(v1beta2), stored);
  // An exempt level has no limited part to rename.
  json exempt = {{"apiVersion", "flowcontrol.apiserver.k8s.io/v1"},
                 {"spec", {{"type", "Exempt"}}}};
  EXPECT_EQ(
      PriorityLevelV1beta2ToStorage(PriorityLevelV1beta2FromStorage(exempt)),
      exempt);
}

}  // namespace
}  // namespace kmock::api::kinds
