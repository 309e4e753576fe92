#include "api/kinds/replicaset.h"

#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "api/resource.h"
#include "common/clock.h"

namespace kmock::api::kinds {
namespace {

json Rs(json spec) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "ReplicaSet"},
          {"metadata", {{"name", "web-7c5ddbdf54"}, {"namespace", "default"}}},
          {"spec", std::move(spec)}};
}

json WebSpec() {
  return {{"selector", {{"matchLabels", {{"app", "web"}}}}},
          {"template",
           {{"metadata", {{"labels", {{"app", "web"}}}}},
            {"spec",
             {{"containers", {{{"name", "nginx"}, {"image", "nginx"}}}}}}}}};
}

std::vector<std::string> Messages(const FieldErrors& errs) {
  std::vector<std::string> out;
  for (const StatusCause& c : errs.causes())
    out.push_back(c.field + ": " + c.message);
  return out;
}

std::vector<std::string> Errors(json rs) {
  DefaultReplicaSet(rs);
  FieldErrors errs;
  ValidateReplicaSet(rs, &errs);
  return Messages(errs);
}

TEST(ReplicaSetDefaultsTest, ReplicasAndTemplate) {
  json rs = Rs(WebSpec());
  DefaultReplicaSet(rs);
  EXPECT_EQ(rs["spec"]["replicas"], 1);
  EXPECT_FALSE(rs["spec"].contains("revisionHistoryLimit"));
  const json& c = rs["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(c["imagePullPolicy"], "Always");
  EXPECT_EQ(rs["spec"]["template"]["spec"]["restartPolicy"], "Always");
  json zero = Rs(WebSpec());
  zero["spec"]["replicas"] = 0;
  DefaultReplicaSet(zero);
  EXPECT_EQ(zero["spec"]["replicas"], 0);
}

TEST(ReplicaSetValidationTest, Messages) {
  EXPECT_TRUE(Errors(Rs(WebSpec())).empty());
  json spec = WebSpec();
  spec["replicas"] = -1;
  spec["minReadySeconds"] = -1;
  spec["template"]["metadata"]["labels"] = {{"app", "x"}};
  spec["template"]["spec"]["restartPolicy"] = "OnFailure";
  EXPECT_EQ(Errors(Rs(spec)),
            (std::vector<std::string>{
                "spec.replicas: Invalid value: -1: must be greater than or "
                "equal to 0",
                "spec.minReadySeconds: Invalid value: -1: must be greater "
                "than or equal to 0",
                "spec.template.metadata.labels: Invalid value: "
                "map[string]string{\"app\":\"x\"}: `selector` does not match "
                "template `labels`",
                "spec.template.spec.restartPolicy: Unsupported value: "
                "\"OnFailure\": supported values: \"Always\""}));
}

TEST(ReplicaSetValidationTest, SelectorImmutable) {
  json old = Rs(WebSpec());
  json rs = old;
  rs["spec"]["selector"]["matchLabels"]["tier"] = "redis";
  FieldErrors errs;
  ValidateReplicaSetUpdate(rs, old, &errs);
  EXPECT_EQ(Messages(errs),
            std::vector<std::string>{
                "spec.selector: Invalid value: "
                "v1.LabelSelector{MatchLabels:map[string]string{\"app\":"
                "\"web\", \"tier\":\"redis\"}, "
                "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field "
                "is immutable"});
}

TEST(ReplicaSetStrategyTest, Generation) {
  json rs = Rs(WebSpec());
  rs["status"] = {{"replicas", 7}};
  ReplicaSetStrategy()->PrepareForCreate(rs);
  ReplicaSetStrategy()->Default(rs);
  EXPECT_EQ(rs["status"], json({{"replicas", 0}}));
  EXPECT_EQ(rs["metadata"]["generation"], 1);

  json annotated = rs;
  annotated["metadata"]["annotations"] = {
      {"deployment.kubernetes.io/revision", "2"}};
  annotated["status"] = {{"replicas", 99}};
  ReplicaSetStrategy()->Default(annotated);
  ReplicaSetStrategy()->PrepareForUpdate(annotated, rs);
  EXPECT_EQ(annotated["metadata"]["generation"], 1);
  EXPECT_EQ(annotated["status"], rs["status"]);

  json scaled = rs;
  scaled["spec"]["replicas"] = 3;
  ReplicaSetStrategy()->Default(scaled);
  ReplicaSetStrategy()->PrepareForUpdate(scaled, rs);
  EXPECT_EQ(scaled["metadata"]["generation"], 2);
}

TEST(ReplicaSetStrategyTest, StatusWrites) {
  json old = Rs(WebSpec());
  ReplicaSetStrategy()->PrepareForCreate(old);
  ReplicaSetStrategy()->Default(old);
  json obj = old;
  obj["spec"]["replicas"] = 5;
  obj["status"] = {{"replicas", 1},
                   {"fullyLabeledReplicas", 2},
                   {"readyReplicas", 1},
                   {"availableReplicas", 1},
                   {"observedGeneration", 1}};
  ReplicaSetStatusStrategy()->PrepareForUpdate(obj, old);
  EXPECT_EQ(obj["spec"], old["spec"]);
  FieldErrors errs;
  ReplicaSetStatusStrategy()->ValidateUpdate(obj, old, &errs);
  EXPECT_EQ(Messages(errs),
            std::vector<std::string>{
                "status.fullyLabeledReplicas: Invalid value: 2: cannot be "
                "greater than status.replicas"});
}

TEST(ReplicaSetTableTest, CellsAndFieldSelector) {
  json rs = Rs(WebSpec());
  DefaultReplicaSet(rs);
  rs["spec"]["replicas"] = 3;
  rs["spec"]["selector"]["matchLabels"]["pod-template-hash"] = "7c5ddbdf54";
  rs["metadata"]["creationTimestamp"] = "2024-01-01T00:00:00Z";
  rs["status"] = {{"replicas", 2}, {"readyReplicas", 1}};
  TimePoint now;
  ASSERT_TRUE(ParseRfc3339("2024-01-01T00:00:30Z", &now));
  EXPECT_EQ(
      testing::RowOf("apps", "replicasets", rs, now),
      (std::vector<json>{"web-7c5ddbdf54", 3, 2, 1, "30s", "nginx", "nginx",
                         "app=web,pod-template-hash=7c5ddbdf54"}));
  std::vector<PrinterColumn> cols = testing::ColumnsOf("apps", "replicasets");
  ASSERT_EQ(cols.size(), 8u);
  EXPECT_EQ(cols[1].name, "Desired");
  EXPECT_EQ(cols[1].type, "integer");
  EXPECT_EQ(cols[7].name, "Selector");
  EXPECT_EQ(cols[7].priority, 1);

  std::vector<SelectableField> fields = ReplicaSetSelectableFields();
  ASSERT_EQ(fields.size(), 1u);
  EXPECT_EQ(fields[0].name, "status.replicas");
  EXPECT_EQ(fields[0].value(rs), "2");
  EXPECT_EQ(fields[0].value(Rs(WebSpec())), "0");
}

TEST(ReplicaSetCatalogTest, Entry) {
  const ResourceInfo* r =
      testing::BuiltinCatalog().FindByKind("apps", "v1", "ReplicaSet");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->plural, "replicasets");
  EXPECT_EQ(r->short_names, std::vector<std::string>{"rs"});
  EXPECT_EQ(r->key_prefix, "/registry/replicasets/");
  ASSERT_NE(r->FindSubresource("scale"), nullptr);
  EXPECT_EQ(r->FindSubresource("scale")->group, "autoscaling");
  EXPECT_TRUE(r->scale.has_value());
  EXPECT_TRUE(r->HasVerb("deletecollection"));
}

}  // namespace
}  // namespace kmock::api::kinds
