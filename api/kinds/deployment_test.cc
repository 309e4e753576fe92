#include "api/kinds/deployment.h"

#include <gtest/gtest.h>

#include <functional>

#include "api/builtin_catalog.h"
#include "api/openapi.h"
#include "api/resource.h"
#include "api/schema.h"
#include "common/clock.h"

namespace kmock::api::kinds {
namespace {

json Deploy(json spec) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", "web"}, {"namespace", "default"}}},
          {"spec", std::move(spec)}};
}

json WebSpec() {
  return {
      {"selector", {{"matchLabels", {{"app", "web"}}}}},
      {"template",
       {{"metadata", {{"labels", {{"app", "web"}}}}},
        {"spec",
         {{"containers", {{{"name", "nginx"}, {"image", "nginx:1.27"}}}}}}}}};
}

std::vector<std::string> Messages(const FieldErrors& errs) {
  std::vector<std::string> out;
  for (const StatusCause& c : errs.causes())
    out.push_back(c.field + ": " + c.message);
  return out;
}

std::vector<std::string> Errors(json d) {
  DefaultDeployment(d);
  FieldErrors errs;
  ValidateDeployment(d, &errs);
  return Messages(errs);
}

TEST(DeploymentDefaultsTest, Golden) {
  json d = Deploy(WebSpec());
  DefaultDeployment(d);
  json want = {
      {"replicas", 1},
      {"selector", {{"matchLabels", {{"app", "web"}}}}},
      {"strategy",
       {{"type", "RollingUpdate"},
        {"rollingUpdate", {{"maxUnavailable", "25%"}, {"maxSurge", "25%"}}}}},
      {"revisionHistoryLimit", 10},
      {"progressDeadlineSeconds", 600},
      {"template",
       {{"metadata", {{"labels", {{"app", "web"}}}}},
        {"spec",
         {{"containers",
           {{{"name", "nginx"},
             {"image", "nginx:1.27"},
             {"imagePullPolicy", "IfNotPresent"},
             {"terminationMessagePath", "/dev/termination-log"},
             {"terminationMessagePolicy", "File"},
             {"resources", json::object()}}}},
          {"restartPolicy", "Always"},
          {"dnsPolicy", "ClusterFirst"},
          {"schedulerName", "default-scheduler"},
          {"terminationGracePeriodSeconds", 30},
          {"securityContext", json::object()},
          {"enableServiceLinks", true}}}}}};
  EXPECT_EQ(d["spec"], want) << d["spec"].dump(2);
  // Idempotent.
  json again = d;
  DefaultDeployment(again);
  EXPECT_EQ(again, d);
}

TEST(DeploymentDefaultsTest, TemplateGetsNoAdmissionAdditions) {
  json d = Deploy(WebSpec());
  DefaultDeployment(d);
  const json& spec = d["spec"]["template"]["spec"];
  EXPECT_FALSE(spec.contains("serviceAccountName"));
  EXPECT_FALSE(spec.contains("tolerations"));
  EXPECT_FALSE(spec.contains("volumes"));
  EXPECT_FALSE(spec.contains("priority"));
}

TEST(DeploymentDefaultsTest, KeepsGivenValuesAndRecreateHasNoRollingUpdate) {
  json spec = WebSpec();
  spec["replicas"] = 0;
  spec["revisionHistoryLimit"] = 0;
  spec["strategy"] = {{"type", "Recreate"}};
  json d = Deploy(spec);
  DefaultDeployment(d);
  EXPECT_EQ(d["spec"]["replicas"], 0);
  EXPECT_EQ(d["spec"]["revisionHistoryLimit"], 0);
  EXPECT_EQ(d["spec"]["strategy"], json({{"type", "Recreate"}}));

  spec["strategy"] = {{"rollingUpdate", {{"maxSurge", 1}}}};
  d = Deploy(spec);
  DefaultDeployment(d);
  EXPECT_EQ(
      d["spec"]["strategy"],
      json({{"type", "RollingUpdate"},
            {"rollingUpdate", {{"maxSurge", 1}, {"maxUnavailable", "25%"}}}}));
}

TEST(DeploymentValidationTest, ValidIsClean) {
  EXPECT_TRUE(Errors(Deploy(WebSpec())).empty());
}

TEST(DeploymentValidationTest, SelectorMustMatchTemplateLabels) {
  json spec = WebSpec();
  spec["template"]["metadata"]["labels"] = {{"app", "x"}};
  EXPECT_EQ(Errors(Deploy(spec)),
            std::vector<std::string>{
                "spec.template.metadata.labels: Invalid value: "
                "map[string]string{\"app\":\"x\"}: `selector` does not match "
                "template `labels`"});
}

TEST(DeploymentValidationTest, SelectorRequired) {
  json spec = WebSpec();
  spec.erase("selector");
  EXPECT_EQ(Errors(Deploy(spec)),
            (std::vector<std::string>{
                "spec.selector: Required value",
                "spec.template.metadata.labels: Invalid value: "
                "map[string]string{\"app\":\"web\"}: `selector` does not "
                "match template `labels`"}));
}

TEST(DeploymentValidationTest, EmptySelector) {
  json spec = WebSpec();
  spec["selector"] = json::object();
  EXPECT_EQ(Errors(Deploy(spec)),
            std::vector<std::string>{
                "spec.selector: Invalid value: "
                "v1.LabelSelector{MatchLabels:map[string]string(nil), "
                "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty "
                "selector is invalid for deployment"});
}

TEST(DeploymentValidationTest, BadSelectorOperator) {
  json spec = WebSpec();
  spec["selector"] = {
      {"matchExpressions",
       {{{"key", "app"}, {"operator", "Is"}, {"values", {"web"}}}}}};
  EXPECT_EQ(Errors(Deploy(spec)),
            (std::vector<std::string>{
                "spec.selector.matchExpressions[0].operator: Invalid value: "
                "\"Is\": not a valid selector operator",
                "spec.selector: Invalid value: "
                "v1.LabelSelector{MatchLabels:map[string]string(nil), "
                "MatchExpressions:[]v1.LabelSelectorRequirement{v1."
                "LabelSelectorRequirement{Key:\"app\", Operator:\"Is\", "
                "Values:[]string{\"web\"}}}}: invalid label selector"}));
}

TEST(DeploymentValidationTest, ExpressionSelectorMatches) {
  json spec = WebSpec();
  spec["selector"] = {
      {"matchExpressions",
       {{{"key", "app"}, {"operator", "In"}, {"values", {"api", "web"}}},
        {{"key", "tier"}, {"operator", "DoesNotExist"}}}}};
  EXPECT_TRUE(Errors(Deploy(spec)).empty());
}

TEST(DeploymentValidationTest, NegativeCounts) {
  json spec = WebSpec();
  spec["replicas"] = -1;
  spec["minReadySeconds"] = -2;
  spec["revisionHistoryLimit"] = -3;
  EXPECT_EQ(Errors(Deploy(spec)),
            (std::vector<std::string>{
                "spec.replicas: Invalid value: -1: must be greater than or "
                "equal to 0",
                "spec.minReadySeconds: Invalid value: -2: must be greater "
                "than or equal to 0",
                "spec.revisionHistoryLimit: Invalid value: -3: must be "
                "greater than or equal to 0"}));
}

TEST(DeploymentValidationTest, ProgressDeadlineAboveMinReady) {
  json spec = WebSpec();
  spec["minReadySeconds"] = 10;
  spec["progressDeadlineSeconds"] = 10;
  EXPECT_EQ(Errors(Deploy(spec)),
            std::vector<std::string>{
                "spec.progressDeadlineSeconds: Invalid value: 10: must be "
                "greater than minReadySeconds"});
  spec["progressDeadlineSeconds"] = -1;
  spec["minReadySeconds"] = 0;
  EXPECT_EQ(Errors(Deploy(spec)),
            (std::vector<std::string>{
                "spec.progressDeadlineSeconds: Invalid value: -1: must be "
                "greater than or equal to 0",
                "spec.progressDeadlineSeconds: Invalid value: -1: must be "
                "greater than minReadySeconds"}));
}

TEST(DeploymentValidationTest, RestartPolicyMustBeAlways) {
  json spec = WebSpec();
  spec["template"]["spec"]["restartPolicy"] = "Never";
  EXPECT_EQ(Errors(Deploy(spec)),
            std::vector<std::string>{
                "spec.template.spec.restartPolicy: Unsupported value: "
                "\"Never\": supported values: \"Always\""});
}

TEST(DeploymentValidationTest, TemplatePodSpecValidatedUnderTemplatePath) {
  json spec = WebSpec();
  spec["template"]["spec"]["containers"][0].erase("image");
  spec["template"]["spec"]["activeDeadlineSeconds"] = 30;
  spec["template"]["metadata"]["labels"]["bad key!"] = "v";
  EXPECT_EQ(Errors(Deploy(spec)),
            (std::vector<std::string>{
                "spec.template.labels: Invalid value: \"bad key!\": name part "
                "must consist of alphanumeric characters, '-', '_' or '.', "
                "and must start and end with an alphanumeric character (e.g. "
                "'MyName',  or 'my.name',  or '123-abc', regex used for "
                "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                "spec.template.spec.containers[0].image: Required value",
                "spec.template.spec.activeDeadlineSeconds: Invalid value: 30: "
                "activeDeadlineSeconds in ReplicaSet is not Supported"}));
}

TEST(DeploymentValidationTest, SurgeAndUnavailableNotBothZero) {
  json spec = WebSpec();
  spec["strategy"] = {
      {"type", "RollingUpdate"},
      {"rollingUpdate", {{"maxSurge", 0}, {"maxUnavailable", 0}}}};
  EXPECT_EQ(Errors(Deploy(spec)),
            std::vector<std::string>{
                "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "
                "intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}: may not "
                "be 0 when `maxSurge` is 0"});
  spec["strategy"]["rollingUpdate"] = {{"maxSurge", "0%"},
                                       {"maxUnavailable", "0%"}};
  EXPECT_EQ(Errors(Deploy(spec)),
            std::vector<std::string>{
                "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "
                "intstr.IntOrString{Type:1, IntVal:0, StrVal:\"0%\"}: may not "
                "be 0 when `maxSurge` is 0"});
}

TEST(DeploymentValidationTest, Percentages) {
  json spec = WebSpec();
  spec["strategy"] = {
      {"type", "RollingUpdate"},
      {"rollingUpdate", {{"maxSurge", "ten"}, {"maxUnavailable", "150%"}}}};
  EXPECT_EQ(
      Errors(Deploy(spec)),
      (std::vector<std::string>{
          "spec.strategy.rollingUpdate.maxSurge: Invalid value: "
          "intstr.IntOrString{Type:1, IntVal:0, StrVal:\"ten\"}: a valid "
          "percent string must be a numeric string followed by an ending '%' "
          "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
          "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "
          "intstr.IntOrString{Type:1, IntVal:0, StrVal:\"150%\"}: must not be "
          "greater than 100%"}));
  spec["strategy"]["rollingUpdate"] = {{"maxSurge", -1}, {"maxUnavailable", 1}};
  EXPECT_EQ(Errors(Deploy(spec)),
            std::vector<std::string>{
                "spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: "
                "must be greater than or equal to 0"});
}

TEST(DeploymentValidationTest, StrategyTypes) {
  json spec = WebSpec();
  spec["strategy"] = {{"type", "Recreate"},
                      {"rollingUpdate", {{"maxSurge", 1}}}};
  EXPECT_EQ(Errors(Deploy(spec)),
            std::vector<std::string>{
                "spec.strategy.rollingUpdate: Forbidden: may not be specified "
                "when strategy `type` is 'Recreate'"});
  spec["strategy"] = {{"type", "BlueGreen"}};
  EXPECT_EQ(Errors(Deploy(spec)),
            std::vector<std::string>{
                "spec.strategy: Unsupported value: "
                "apps.DeploymentStrategy{Type:\"BlueGreen\", "
                "RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: "
                "supported values: \"Recreate\", \"RollingUpdate\""});
}

TEST(DeploymentValidationTest, SelectorIsImmutable) {
  json old = Deploy(WebSpec());
  json d = old;
  d["spec"]["selector"]["matchLabels"]["app"] = "web2";
  FieldErrors errs;
  ValidateDeploymentUpdate(d, old, &errs);
  EXPECT_EQ(Messages(errs),
            std::vector<std::string>{
                "spec.selector: Invalid value: "
                "v1.LabelSelector{MatchLabels:map[string]string{\"app\":"
                "\"web2\"}, "
                "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field "
                "is immutable"});
  FieldErrors none;
  ValidateDeploymentUpdate(old, old, &none);
  EXPECT_TRUE(none.empty());
}

// Runs the registry's order: create, then an update to `change`.
json Created() {
  json d = Deploy(WebSpec());
  d["status"] = {{"replicas", 5}};
  DeploymentStrategy()->PrepareForCreate(d);
  DeploymentStrategy()->Default(d);
  return d;
}

json Updated(const json& old, json obj) {
  DeploymentStrategy()->Default(obj);
  DeploymentStrategy()->PrepareForUpdate(obj, old);
  return obj;
}

TEST(DeploymentStrategyTest, CreateClearsStatusAndSetsGeneration) {
  json d = Created();
  EXPECT_EQ(d["status"], json::object());
  EXPECT_EQ(d["metadata"]["generation"], 1);
}

TEST(DeploymentStrategyTest, GenerationFollowsSpecAndAnnotations) {
  json old = Created();
  old["status"] = {{"replicas", 3}, {"observedGeneration", 1}};

  json same = old;
  same["status"] = json::object();  // clients cannot write the status
  same["metadata"]["labels"] = {{"team", "a"}};
  json u = Updated(old, same);
  EXPECT_EQ(u["metadata"]["generation"], 1);
  EXPECT_EQ(u["status"], old["status"]);

  json scaled = old;
  scaled["spec"]["replicas"] = 4;
  EXPECT_EQ(Updated(old, scaled)["metadata"]["generation"], 2);

  json annotated = old;
  annotated["metadata"]["annotations"] = {
      {"kubectl.kubernetes.io/restartedAt", "2025-01-01T00:00:00Z"}};
  EXPECT_EQ(Updated(old, annotated)["metadata"]["generation"], 2);

  // A spec that only differs by defaults is the same spec.
  json sparse = old;
  sparse["spec"].erase("revisionHistoryLimit");
  EXPECT_EQ(Updated(old, sparse)["metadata"]["generation"], 1);
}

TEST(DeploymentStrategyTest, StatusWritesKeepSpecAndLabels) {
  json old = Created();
  old["metadata"]["labels"] = {{"app", "web"}};
  json obj = old;
  obj["spec"]["replicas"] = 9;
  obj["metadata"]["labels"] = {{"app", "other"}};
  obj["metadata"]["annotations"] = {{"deployment.kubernetes.io/revision", "1"}};
  obj["status"] = {{"replicas", 1}, {"observedGeneration", 1}};
  DeploymentStatusStrategy()->PrepareForUpdate(obj, old);
  EXPECT_EQ(obj["spec"], old["spec"]);
  EXPECT_EQ(obj["metadata"]["labels"], old["metadata"]["labels"]);
  EXPECT_EQ(obj["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
            "1");
  EXPECT_EQ(obj["status"]["replicas"], 1);
  EXPECT_EQ(obj["metadata"]["generation"], 1);
}

TEST(DeploymentStrategyTest, StatusValidation) {
  json old = Created();
  old["status"] = {{"collisionCount", 2}};
  json obj = old;
  obj["status"] = {{"replicas", 2},
                   {"updatedReplicas", 3},
                   {"readyReplicas", 1},
                   {"availableReplicas", 2},
                   {"unavailableReplicas", -1},
                   {"collisionCount", 1}};
  FieldErrors errs;
  DeploymentStatusStrategy()->ValidateUpdate(obj, old, &errs);
  EXPECT_EQ(Messages(errs),
            (std::vector<std::string>{
                "status.unavailableReplicas: Invalid value: -1: must be "
                "greater than or equal to 0",
                "status.updatedReplicas: Invalid value: 3: cannot be greater "
                "than status.replicas",
                "status.availableReplicas: Invalid value: 2: cannot be "
                "greater than readyReplicas",
                "status.collisionCount: Invalid value: 1: cannot be "
                "decremented"}));
}

TEST(DeploymentTableTest, Cells) {
  json d = Created();
  d["metadata"]["creationTimestamp"] = "2024-01-01T00:00:00Z";
  d["spec"]["replicas"] = 3;
  d["spec"]["template"]["spec"]["containers"].push_back(
      {{"name", "sidecar"}, {"image", "busybox"}});
  d["status"] = {{"replicas", 3},
                 {"readyReplicas", 2},
                 {"updatedReplicas", 3},
                 {"availableReplicas", 2}};
  TimePoint now;
  ASSERT_TRUE(ParseRfc3339("2024-01-01T00:05:00Z", &now));
  std::vector<json> cells = testing::RowOf("apps", "deployments", d, now);
  EXPECT_EQ(cells, (std::vector<json>{"web", "2/3", 3, 2, "5m", "nginx,sidecar",
                                      "nginx:1.27,busybox", "app=web"}));
  std::vector<PrinterColumn> cols = testing::ColumnsOf("apps", "deployments");
  ASSERT_EQ(cols.size(), cells.size());
  std::vector<std::string> names;
  for (const PrinterColumn& c : cols) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Ready", "Up-to-date",
                                             "Available", "Age", "Containers",
                                             "Images", "Selector"}));
  EXPECT_EQ(cols[5].priority, 1);
  EXPECT_EQ(cols[4].priority, 0);
}

TEST(DeploymentCatalogTest, Entry) {
  const ResourceInfo* r =
      testing::BuiltinCatalog().Find("apps", "v1", "deployments");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->kind, "Deployment");
  EXPECT_EQ(r->short_names, std::vector<std::string>{"deploy"});
  EXPECT_EQ(r->categories, std::vector<std::string>{"all"});
  EXPECT_EQ(r->key_prefix, "/registry/deployments/");
  EXPECT_EQ(r->QualifiedName(), "deployments.apps");
  const Subresource* scale = r->FindSubresource("scale");
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(scale->group + "/" + scale->version + "/" + scale->kind,
            "autoscaling/v1/Scale");
  EXPECT_EQ(scale->verbs, (std::vector<std::string>{"get", "patch", "update"}));
  ASSERT_TRUE(r->scale.has_value());
  EXPECT_EQ(r->scale->spec_replicas_path, "spec.replicas");
  ASSERT_NE(r->FindSubresource("status"), nullptr);
  EXPECT_EQ(r->FindSubresource("status")->kind, "Deployment");
  EXPECT_EQ(r->status_strategy, DeploymentStatusStrategy());
}

TEST(AppsOpenApiTest, DocumentIsCompleteAndScaleSpeaksAutoscaling) {
  json doc = OpenApiV3Document(testing::BuiltinCatalog(), Schema::Builtin(),
                               "apps", "v1", "1.33.0");
  const json& schemas = doc["components"]["schemas"];
  for (const char* name :
       {"io.k8s.api.apps.v1.Deployment", "io.k8s.api.apps.v1.DeploymentList",
        "io.k8s.api.apps.v1.ReplicaSet", "io.k8s.api.apps.v1.ReplicaSetList",
        "io.k8s.api.autoscaling.v1.Scale",
        "io.k8s.api.core.v1.PodTemplateSpec"}) {
    EXPECT_TRUE(schemas.contains(name)) << name;
  }
  int refs = 0;
  std::function<void(const json&)> walk = [&](const json& j) {
    if (j.is_object()) {
      for (const auto& [k, v] : j.items()) {
        if (k == "$ref") {
          ++refs;
          std::string ref = v;
          const std::string prefix = "#/components/schemas/";
          ASSERT_EQ(ref.rfind(prefix, 0), 0u) << ref;
          EXPECT_TRUE(schemas.contains(ref.substr(prefix.size()))) << ref;
        } else {
          walk(v);
        }
      }
    } else if (j.is_array()) {
      for (const json& v : j) walk(v);
    }
  };
  walk(doc);
  EXPECT_GT(refs, 50);
  const json& scale =
      doc["paths"]
         ["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"];
  ASSERT_TRUE(scale.contains("put")) << scale.dump();
  EXPECT_EQ(
      scale["put"]["x-kubernetes-group-version-kind"],
      json({{"group", "autoscaling"}, {"kind", "Scale"}, {"version", "v1"}}));
  EXPECT_TRUE(doc["paths"].contains(
      "/apis/apps/v1/namespaces/{namespace}/replicasets/{name}/status"));
}

}  // namespace
}  // namespace kmock::api::kinds
