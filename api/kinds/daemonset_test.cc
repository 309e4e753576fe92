// DaemonSet defaults, kube-apiserver's validation messages, and the
// template generation kept in its annotation.
#include "api/kinds/daemonset.h"

#include <gtest/gtest.h>

namespace kmock::api::kinds {
namespace {

using nlohmann::json;

json Ds(json spec) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "DaemonSet"},
          {"metadata", {{"name", "agent"}, {"namespace", "default"}}},
          {"spec", std::move(spec)}};
}

json AgentSpec() {
  return {
      {"selector", {{"matchLabels", {{"app", "agent"}}}}},
      {"template",
       {{"metadata", {{"labels", {{"app", "agent"}}}}},
        {"spec", {{"containers", {{{"name", "a"}, {"image", "agent"}}}}}}}}};
}

std::vector<std::string> Errors(json ds) {
  DefaultDaemonSet(ds);
  FieldErrors errs;
  ValidateDaemonSet(ds, &errs);
  std::vector<std::string> out;
  for (const StatusCause& c : errs.causes()) {
    out.push_back(c.field + ": " + c.message);
  }
  return out;
}

TEST(DaemonSetDefaultsTest, StrategyHistoryAndGeneration) {
  json ds = Ds(AgentSpec());
  DefaultDaemonSet(ds);
  EXPECT_EQ(
      ds["spec"]["updateStrategy"],
      json({{"type", "RollingUpdate"},
            {"rollingUpdate", {{"maxUnavailable", 1}, {"maxSurge", 0}}}}));
  EXPECT_EQ(ds["spec"]["revisionHistoryLimit"], 10);
  EXPECT_EQ(ds["spec"]["template"]["spec"]["restartPolicy"], "Always");
  EXPECT_EQ(
      ds["metadata"]["annotations"][kDaemonSetTemplateGenerationAnnotation],
      "1");
  json on_delete = Ds(AgentSpec());
  on_delete["spec"]["updateStrategy"] = {{"type", "OnDelete"}};
  DefaultDaemonSet(on_delete);
  EXPECT_FALSE(on_delete["spec"]["updateStrategy"].contains("rollingUpdate"));
}

TEST(DaemonSetValidationTest, Messages) {
  EXPECT_TRUE(Errors(Ds(AgentSpec())).empty());
  json spec = AgentSpec();
  spec["selector"] = json::object();
  EXPECT_EQ(Errors(Ds(spec)),
            std::vector<std::string>{
                "spec.selector: Invalid value: "
                "v1.LabelSelector{MatchLabels:map[string]string(nil), "
                "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty "
                "selector is invalid for daemonset"});
  spec = AgentSpec();
  spec["updateStrategy"] = {
      {"type", "RollingUpdate"},
      {"rollingUpdate", {{"maxUnavailable", 0}, {"maxSurge", 0}}}};
  EXPECT_EQ(Errors(Ds(spec)),
            std::vector<std::string>{
                "spec.updateStrategy.rollingUpdate.maxUnavailable: Required "
                "value: cannot be 0 when maxSurge is 0"});
  spec["updateStrategy"]["rollingUpdate"] = {{"maxUnavailable", 1},
                                             {"maxSurge", "10%"}};
  EXPECT_EQ(Errors(Ds(spec)),
            std::vector<std::string>{
                "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "
                "intstr.IntOrString{Type:1, IntVal:0, StrVal:\"10%\"}: may not "
                "be set when maxUnavailable is non-zero"});
  spec["updateStrategy"] = {{"type", "Sometimes"}};
  EXPECT_EQ(Errors(Ds(spec)),
            std::vector<std::string>{
                "spec.updateStrategy: Unsupported value: "
                "apps.DaemonSetUpdateStrategy{Type:\"Sometimes\", "
                "RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}: supported "
                "values: \"RollingUpdate\", \"OnDelete\""});
  spec = AgentSpec();
  spec["template"]["spec"]["restartPolicy"] = "Never";
  spec["template"]["spec"]["activeDeadlineSeconds"] = 5;
  EXPECT_EQ(Errors(Ds(spec)),
            (std::vector<std::string>{
                "spec.template.spec.restartPolicy: Unsupported value: "
                "\"Never\": supported values: \"Always\"",
                "spec.template.spec.activeDeadlineSeconds: Invalid value: 5: "
                "activeDeadlineSeconds must be nil for daemonsets"}));
}

TEST(DaemonSetUpdateTest, TemplateGenerationCountsTemplateChanges) {
  json old = Ds(AgentSpec());
  DefaultDaemonSet(old);
  json same = old;
  same["spec"]["minReadySeconds"] = 5;
  KeepDaemonSetTemplateGeneration(same, old);
  EXPECT_EQ(
      same["metadata"]["annotations"][kDaemonSetTemplateGenerationAnnotation],
      "1");
  json changed = old;
  changed["spec"]["template"]["spec"]["containers"][0]["image"] = "agent:2";
  KeepDaemonSetTemplateGeneration(changed, old);
  EXPECT_EQ(changed["metadata"]["annotations"]
                   [kDaemonSetTemplateGenerationAnnotation],
            "2");
  json moved = changed;
  moved["spec"]["selector"]["matchLabels"]["tier"] = "x";
  FieldErrors errs;
  ValidateDaemonSetUpdate(moved, changed, &errs);
  ASSERT_FALSE(errs.causes().empty());
  EXPECT_EQ(errs.causes()[0].field, "spec.selector");
}

}  // namespace
}  // namespace kmock::api::kinds
