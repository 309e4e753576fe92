// ReplicationController defaults (selector and labels from the template)
// and kube-apiserver's messages.
#include "api/kinds/replication_controller.h"

#include <gtest/gtest.h>

namespace kmock::api::kinds {
namespace {

using nlohmann::json;

json Rc(json spec) {
  return {{"apiVersion", "v1"},
          {"kind", "ReplicationController"},
          {"metadata", {{"name", "web"}}},
          {"spec", std::move(spec)}};
}

json Template(json labels) {
  return {{"metadata", {{"labels", labels}}},
          {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}};
}

std::vector<std::string> Errors(json rc) {
  DefaultReplicationController(rc);
  FieldErrors errs;
  ValidateReplicationController(rc, &errs);
  std::vector<std::string> out;
  for (const StatusCause& c : errs.causes()) {
    out.push_back(c.field + ": " + c.message);
  }
  return out;
}

TEST(ReplicationControllerTest, SelectorAndLabelsFromTheTemplate) {
  json rc = Rc({{"template", Template({{"app", "web"}})}});
  DefaultReplicationController(rc);
  EXPECT_EQ(rc["spec"]["selector"], json({{"app", "web"}}));
  EXPECT_EQ(rc["metadata"]["labels"], json({{"app", "web"}}));
  EXPECT_EQ(rc["spec"]["replicas"], 1);
  EXPECT_EQ(rc["spec"]["template"]["spec"]["restartPolicy"], "Always");
  EXPECT_TRUE(Errors(rc).empty());
}

TEST(ReplicationControllerTest, Messages) {
  EXPECT_EQ(Errors(Rc({{"selector", {{"app", "x"}}},
                       {"template", Template({{"app", "web"}})}})),
            std::vector<std::string>{
                "spec.template.metadata.labels: Invalid value: "
                "map[string]string{\"app\":\"web\"}: `selector` does not "
                "match template `labels`"});
  EXPECT_EQ(Errors(Rc({{"replicas", -1}})),
            (std::vector<std::string>{
                "spec.selector: Required value",
                "spec.replicas: Invalid value: -1: must be greater than or "
                "equal to 0",
                "spec.template: Required value"}));
}

}  // namespace
}  // namespace kmock::api::kinds
