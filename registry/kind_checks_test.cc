// The checks of kinds that only add checks to the generic strategy,
// through the registry: kube-apiserver's 422s with nothing stored.
// ConfigMaps and Secrets (bad keys, missing typed keys, immutable data, a
// changed type, stringData folded into data); Jobs and CronJobs (restart
// policy, schedule, the template checked as a pod); RBAC rules and
// bindings; claims' access modes and requests; Ingress path types;
// PodDisruptionBudgets' bounds and eviction policy.
#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "registry/registry.h"
#include "registry/test_registry.h"

namespace kmock::registry {
namespace {

using nlohmann::json;

class KindChecksTest : public registry::testing::RegistryFixture {
 protected:
  void SetUp() override {
    RegistryFixture::SetUp();
    configmaps_ = api::testing::BuiltinCatalog().Find("", "v1", "configmaps");
    secrets_ = api::testing::BuiltinCatalog().Find("", "v1", "secrets");
    ASSERT_NE(configmaps_, nullptr);
    ASSERT_NE(secrets_, nullptr);
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "default").ok());
  }

  // The message of a refused write, or "ok".
  const api::ResourceInfo* Res(const char* group, const char* plural) {
    const api::ResourceInfo* res =
        api::testing::BuiltinCatalog().Find(group, "v1", plural);
    EXPECT_NE(res, nullptr) << plural;
    return res;
  }

  std::string Create(const api::ResourceInfo* res, const json& obj) {
    auto r = registry_->Create(*res, res->namespaced ? "default" : "", obj, {});
    if (r.ok()) return "ok";
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
    return r.status().message();
  }
  std::string Update(const api::ResourceInfo* res, const json& obj) {
    auto r = registry_->Update(*res, "default",
                               obj["metadata"]["name"].get<std::string>(), "",
                               obj, {});
    if (r.ok()) return "ok";
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
    return r.status().message();
  }
  json Get(const api::ResourceInfo* res, const std::string& name) {
    auto r = registry_->Get(*res, res->namespaced ? "default" : "", name);
    return r.ok() ? *r : json();
  }

  const api::ResourceInfo* configmaps_ = nullptr;
  const api::ResourceInfo* secrets_ = nullptr;
};

json ConfigMap(const std::string& name, json data) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}}},
          {"data", std::move(data)}};
}

json Secret(const std::string& name, const std::string& type, json data) {
  json s = {{"apiVersion", "v1"},
            {"kind", "Secret"},
            {"metadata", {{"name", name}}},
            {"data", std::move(data)}};
  if (!type.empty()) s["type"] = type;
  return s;
}

TEST_F(KindChecksTest, ConfigMapKeysAreChecked) {
  EXPECT_EQ(Create(configmaps_, ConfigMap("bad", {{"a b", "1"}, {"..x", "2"}})),
            "ConfigMap \"bad\" is invalid: [data[..x]: Invalid value: \"..x\": "
            "must not start with '..', data[a b]: Invalid value: \"a b\": a "
            "valid config key must consist of alphanumeric characters, '-', "
            "'_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', "
            "regex used for validation is '[-._a-zA-Z0-9]+')]");
  EXPECT_TRUE(Get(configmaps_, "bad").is_null());
  EXPECT_EQ(Create(configmaps_, ConfigMap("good", {{"app.conf", "x=1"}})),
            "ok");
}

TEST_F(KindChecksTest, ConfigMapOverOneMebibyteIsRefused) {
  std::string big(1024 * 1024 + 1, 'x');
  std::string msg = Create(configmaps_, ConfigMap("big", {{"blob", big}}));
  EXPECT_NE(msg.find("Too long: may not be more than 1048576 bytes"),
            std::string::npos)
      << msg;
}

TEST_F(KindChecksTest, ImmutableConfigMapKeepsItsDataAndFlag) {
  json cm = ConfigMap("frozen", {{"a", "1"}});
  cm["immutable"] = true;
  ASSERT_EQ(Create(configmaps_, cm), "ok");
  json changed = Get(configmaps_, "frozen");
  changed["data"]["a"] = "2";
  EXPECT_EQ(Update(configmaps_, changed),
            "ConfigMap \"frozen\" is invalid: data: Forbidden: field is "
            "immutable when `immutable` is set");
  json thawed = Get(configmaps_, "frozen");
  thawed["immutable"] = false;
  EXPECT_EQ(Update(configmaps_, thawed),
            "ConfigMap \"frozen\" is invalid: immutable: Forbidden: field is "
            "immutable when `immutable` is set");
  EXPECT_EQ(Get(configmaps_, "frozen")["data"]["a"], "1");
  // Labels may still change.
  json labelled = Get(configmaps_, "frozen");
  labelled["metadata"]["labels"] = {{"team", "a"}};
  EXPECT_EQ(Update(configmaps_, labelled), "ok");
}

TEST_F(KindChecksTest, SecretTypesNeedTheirKeys) {
  EXPECT_EQ(
      Create(secrets_, Secret("tls", "kubernetes.io/tls", {{"x", "MQ=="}})),
      "Secret \"tls\" is invalid: [data[tls.crt]: Required value, "
      "data[tls.key]: Required value]");
  EXPECT_EQ(Create(secrets_, Secret("ssh", "kubernetes.io/ssh-auth", {})),
            "Secret \"ssh\" is invalid: data[ssh-privatekey]: Required value");
  EXPECT_EQ(
      Create(secrets_, Secret("sa", "kubernetes.io/service-account-token", {})),
      "Secret \"sa\" is invalid: "
      "metadata.annotations[kubernetes.io/service-account.name]: Required "
      "value");
  EXPECT_EQ(Create(secrets_, Secret("ok", "", {{"password", "czNjcmV0"}})),
            "ok");
  EXPECT_EQ(Get(secrets_, "ok")["type"], "Opaque");
}

TEST_F(KindChecksTest, SecretTypeCannotChange) {
  ASSERT_EQ(Create(secrets_, Secret("s", "Opaque", {{"a", "MQ=="}})), "ok");
  json s = Get(secrets_, "s");
  s["type"] = "kubernetes.io/basic-auth";
  s["data"]["username"] = "YWRtaW4=";
  EXPECT_EQ(Update(secrets_, s),
            "Secret \"s\" is invalid: type: Invalid value: "
            "\"kubernetes.io/basic-auth\": field is immutable");
}

TEST_F(KindChecksTest, StringDataIsFoldedIntoDataAndNotKept) {
  json s = Secret("sd", "", {{"pw", "czNjcmV0"}});
  s["stringData"] = {{"user", "admin"}, {"pw", "override"}};
  ASSERT_EQ(Create(secrets_, s), "ok");
  json stored = Get(secrets_, "sd");
  EXPECT_FALSE(stored.contains("stringData"));
  EXPECT_EQ(stored["data"],
            json({{"user", "YWRtaW4="}, {"pw", "b3ZlcnJpZGU="}}));
}

json Job(json pod_spec) {
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", {{"name", "pi"}}},
          {"spec", {{"template", {{"spec", std::move(pod_spec)}}}}}};
}

json PiContainers() {
  return json::array({{{"name", "pi"}, {"image", "perl:5.34.0"}}});
}

TEST_F(KindChecksTest, JobPodsMustNotRestartAlways) {
  const api::ResourceInfo* jobs = Res("batch", "jobs");
  EXPECT_EQ(Create(jobs, Job({{"containers", PiContainers()}})),
            "Job.batch \"pi\" is invalid: spec.template.spec.restartPolicy: "
            "Required value: valid values: \"OnFailure\", \"Never\"");
  EXPECT_EQ(Create(jobs, Job({{"containers", PiContainers()},
                              {"restartPolicy", "Always"}})),
            "Job.batch \"pi\" is invalid: spec.template.spec.restartPolicy: "
            "Unsupported value: \"Always\": supported values: \"OnFailure\", "
            "\"Never\"");
  EXPECT_EQ(Create(jobs, Job({{"restartPolicy", "Never"}})),
            "Job.batch \"pi\" is invalid: spec.template.spec.containers: "
            "Required value");
  EXPECT_TRUE(Get(jobs, "pi").is_null());
  ASSERT_EQ(Create(jobs, Job({{"containers", PiContainers()},
                              {"restartPolicy", "Never"}})),
            "ok");
  json stored = Get(jobs, "pi");
  // The template gets a pod's defaults.
  EXPECT_EQ(stored["spec"]["template"]["spec"]["dnsPolicy"], "ClusterFirst");
  EXPECT_EQ(stored["spec"]["template"]["spec"]["restartPolicy"], "Never");
}

TEST_F(KindChecksTest, CronJobScheduleIsChecked) {
  const api::ResourceInfo* cronjobs = Res("batch", "cronjobs");
  json cj = {{"apiVersion", "batch/v1"},
             {"kind", "CronJob"},
             {"metadata", {{"name", "hello"}}},
             {"spec",
              {{"schedule", "* * *"},
               {"jobTemplate",
                {{"spec",
                  {{"template",
                    {{"spec",
                      {{"containers", PiContainers()},
                       {"restartPolicy", "OnFailure"}}}}}}}}}}}};
  EXPECT_EQ(Create(cronjobs, cj),
            "CronJob.batch \"hello\" is invalid: spec.schedule: Invalid "
            "value: \"* * *\": expected exactly 5 fields, found 3: [* * *]");
  cj["spec"]["schedule"] = "@hourly";
  EXPECT_EQ(Create(cronjobs, cj), "ok");
}

TEST_F(KindChecksTest, RbacRulesAndBindings) {
  const char* rbac = "rbac.authorization.k8s.io";
  json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
               {"kind", "Role"},
               {"metadata", {{"name", "reader"}}},
               {"rules", {{{"apiGroups", {""}}, {"resources", {"pods"}}}}}};
  EXPECT_EQ(Create(Res(rbac, "roles"), role),
            "Role.rbac.authorization.k8s.io \"reader\" is invalid: "
            "rules[0].verbs: Required value: verbs must contain at least one "
            "value");
  role["rules"][0]["verbs"] = {"get"};
  EXPECT_EQ(Create(Res(rbac, "roles"), role), "ok");

  json binding = {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "ClusterRoleBinding"},
      {"metadata", {{"name", "read"}}},
      {"roleRef", {{"apiGroup", rbac}, {"kind", "Role"}, {"name", "reader"}}},
      {"subjects", {{{"kind", "ServiceAccount"}, {"name", "bot"}}}}};
  EXPECT_EQ(Create(Res(rbac, "clusterrolebindings"), binding),
            "ClusterRoleBinding.rbac.authorization.k8s.io \"read\" is "
            "invalid: [roleRef.kind: Unsupported value: \"Role\": supported "
            "values: \"ClusterRole\", subjects[0].namespace: Required value]");
  binding["roleRef"]["kind"] = "ClusterRole";
  binding["subjects"][0]["namespace"] = "default";
  ASSERT_EQ(Create(Res(rbac, "clusterrolebindings"), binding), "ok");
  json changed = Get(Res(rbac, "clusterrolebindings"), "read");
  changed["roleRef"]["name"] = "admin";
  EXPECT_EQ(Update(Res(rbac, "clusterrolebindings"), changed),
            "ClusterRoleBinding.rbac.authorization.k8s.io \"read\" is "
            "invalid: roleRef: Invalid value: "
            "rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", "
            "Kind:\"ClusterRole\", Name:\"admin\"}: cannot change roleRef");
}

TEST_F(KindChecksTest, ClaimsNeedAccessModesAndStorage) {
  json pvc = {{"apiVersion", "v1"},
              {"kind", "PersistentVolumeClaim"},
              {"metadata", {{"name", "data"}}},
              {"spec", json::object()}};
  EXPECT_EQ(Create(Res("", "persistentvolumeclaims"), pvc),
            "PersistentVolumeClaim \"data\" is invalid: [spec.accessModes: "
            "Required value: at least 1 access mode is required, "
            "spec.resources[storage]: Required value]");
  pvc["spec"] = {{"accessModes", {"ReadWriteOnce"}},
                 {"resources", {{"requests", {{"storage", "1Gi"}}}}}};
  EXPECT_EQ(Create(Res("", "persistentvolumeclaims"), pvc), "ok");
}

TEST_F(KindChecksTest, IngressPathsNeedAType) {
  json ingress = {
      {"apiVersion", "networking.k8s.io/v1"},
      {"kind", "Ingress"},
      {"metadata", {{"name", "web"}}},
      {"spec",
       {{"rules",
         {{{"http",
            {{"paths",
              {{{"path", "/"},
                {"backend",
                 {{"service",
                   {{"name", "web"}, {"port", {{"number", 80}}}}}}}}}}}}}}}}}};
  EXPECT_EQ(Create(Res("networking.k8s.io", "ingresses"), ingress),
            "Ingress.networking.k8s.io \"web\" is invalid: "
            "spec.rules[0].http.paths[0].pathType: Required value: pathType "
            "must be specified");
  ingress["spec"]["rules"][0]["http"]["paths"][0]["pathType"] = "Prefix";
  EXPECT_EQ(Create(Res("networking.k8s.io", "ingresses"), ingress), "ok");
}

TEST_F(KindChecksTest, DisruptionBudgetBounds) {
  const api::ResourceInfo* pdbs = Res("policy", "poddisruptionbudgets");
  auto budget = [](json spec) {
    spec["selector"] = {{"matchLabels", {{"app", "web"}}}};
    return json{{"apiVersion", "policy/v1"},
                {"kind", "PodDisruptionBudget"},
                {"metadata", {{"name", "web"}}},
                {"spec", spec}};
  };
  EXPECT_EQ(Create(pdbs, budget({{"minAvailable", -1}})),
            "PodDisruptionBudget.policy \"web\" is invalid: "
            "spec.minAvailable: Invalid value: -1: must be greater than or "
            "equal to 0");
  EXPECT_EQ(Create(pdbs, budget({{"maxUnavailable", "150%"}})),
            "PodDisruptionBudget.policy \"web\" is invalid: "
            "spec.maxUnavailable: Invalid value: "
            "intstr.IntOrString{Type:1, IntVal:0, StrVal:\"150%\"}: must not "
            "be greater than 100%");
  EXPECT_EQ(Create(pdbs, budget({{"minAvailable", "half"}})),
            "PodDisruptionBudget.policy \"web\" is invalid: "
            "spec.minAvailable: Invalid value: "
            "intstr.IntOrString{Type:1, IntVal:0, StrVal:\"half\"}: a valid "
            "percent string must be a numeric string followed by an ending "
            "'%' (e.g. '1%',  or '93%', regex used for validation is "
            "'[0-9]+%')");
  std::string both =
      Create(pdbs, budget({{"minAvailable", 1}, {"maxUnavailable", 1}}));
  EXPECT_NE(both.find("minAvailable and maxUnavailable cannot be both set"),
            std::string::npos)
      << both;
  EXPECT_EQ(Create(pdbs, budget({{"minAvailable", 1},
                                 {"unhealthyPodEvictionPolicy", "Never"}})),
            "PodDisruptionBudget.policy \"web\" is invalid: "
            "spec.unhealthyPodEvictionPolicy: Unsupported value: \"Never\": "
            "supported values: \"AlwaysAllow\", \"IfHealthyBudget\"");
  EXPECT_EQ(Create(pdbs, budget({{"maxUnavailable", "25%"}})), "ok");
}

}  // namespace
}  // namespace kmock::registry
