#include "fieldmanager/field_manager.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "common/clock.h"
#include "fieldmanager/typed_ops.h"

namespace kmock::fieldmanager {
namespace {

using nlohmann::json;

const api::Schema& S() { return api::Schema::Builtin(); }
const api::Type* DeploymentType() {
  return S().Find("io.k8s.api.apps.v1.Deployment");
}
const api::Type* PodType() { return S().Find("io.k8s.api.core.v1.Pod"); }

TimePoint At(int sec) {
  return TimePoint(std::chrono::seconds(1700000000 + sec));
}

// What `kubectl create deployment nginx --image=nginx` stores once defaulted.
json NginxDeployment() {
  return json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
   "metadata":{"name":"nginx","namespace":"default","labels":{"app":"nginx"},
     "uid":"u1","resourceVersion":"5","generation":1,"creationTimestamp":"2023-11-14T22:13:20Z"},
   "spec":{"replicas":1,"selector":{"matchLabels":{"app":"nginx"}},
     "template":{"metadata":{"labels":{"app":"nginx"}},
       "spec":{"containers":[{"name":"nginx","image":"nginx","resources":{},
         "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",
         "imagePullPolicy":"Always"}],
         "restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst",
         "securityContext":{},"schedulerName":"default-scheduler"}},
     "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},
     "revisionHistoryLimit":10,"progressDeadlineSeconds":600},
   "status":{}})");
}

ManagerInfo Updater(const std::string& name, int sec) {
  ManagerInfo m;
  m.manager = name;
  m.api_version = "apps/v1";
  m.time = At(sec);
  m.reset_fields = DefaultResetFields("", true);
  return m;
}

ApplyOptions Applier(const std::string& name, int sec, bool force = false) {
  ApplyOptions o;
  o.manager = name;
  o.force = force;
  o.api_version = "apps/v1";
  o.kind = "Deployment";
  o.time = At(sec);
  o.reset_fields = DefaultResetFields("", true);
  return o;
}

TEST(UpdateManagedFieldsTest, CreateDeploymentAsKubectlCreate) {
  auto r =
      UpdateManagedFields(nullptr, NginxDeployment(),
                          Updater("kubectl-create", 0), S(), DeploymentType());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const json& mf = (*r)["metadata"]["managedFields"];
  ASSERT_EQ(mf.size(), 1u);
  EXPECT_EQ(mf[0]["manager"], "kubectl-create");
  EXPECT_EQ(mf[0]["operation"], "Update");
  EXPECT_EQ(mf[0]["apiVersion"], "apps/v1");
  EXPECT_EQ(mf[0]["fieldsType"], "FieldsV1");
  EXPECT_EQ(mf[0]["time"], "2023-11-14T22:13:20Z");
  EXPECT_FALSE(mf[0].contains("subresource"));
  json want = json::parse(R"({
    "f:metadata":{"f:labels":{".":{},"f:app":{}}},
    "f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},
      "f:selector":{},
      "f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},
      "f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},
        "f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},
          "f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},
          "f:terminationMessagePolicy":{}}},
          "f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},
          "f:terminationGracePeriodSeconds":{}}}}})");
  EXPECT_EQ(mf[0]["fieldsV1"], want) << mf[0]["fieldsV1"].dump(1);
}

TEST(UpdateManagedFieldsTest, CreatePodAsKubectlRun) {
  json pod = json::parse(R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"nginx","namespace":"default","labels":{"run":"nginx"}},
    "spec":{"containers":[{"name":"nginx","image":"nginx","resources":{},
      "ports":[{"containerPort":80,"protocol":"TCP"}]}],"dnsPolicy":"ClusterFirst"}})");
  ManagerInfo m{
      "kubectl-run", "Update", "v1", "", At(0), DefaultResetFields("", true)};
  auto r = UpdateManagedFields(nullptr, pod, m, S(), PodType());
  ASSERT_TRUE(r.ok());
  json want = json::parse(R"({"f:metadata":{"f:labels":{".":{},"f:run":{}}},
    "f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:name":{},
      "f:ports":{".":{},"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},
        "f:containerPort":{},"f:protocol":{}}},"f:resources":{}}},"f:dnsPolicy":{}}})");
  EXPECT_EQ((*r)["metadata"]["managedFields"][0]["fieldsV1"], want)
      << (*r)["metadata"]["managedFields"][0]["fieldsV1"].dump(1);
}

TEST(UpdateManagedFieldsTest, TwoManagersUpdating) {
  auto created =
      UpdateManagedFields(nullptr, NginxDeployment(),
                          Updater("kubectl-create", 0), S(), DeploymentType());
  ASSERT_TRUE(created.ok());
  json next = *created;
  next["spec"]["replicas"] = 3;
  next["metadata"]["labels"]["tier"] = "web";
  auto r = UpdateManagedFields(*created, next, Updater("kubectl-scale", 60),
                               S(), DeploymentType());
  ASSERT_TRUE(r.ok());
  const json& mf = (*r)["metadata"]["managedFields"];
  ASSERT_EQ(mf.size(), 2u);
  EXPECT_EQ(mf[0]["manager"], "kubectl-create");  // older first
  EXPECT_EQ(mf[1]["manager"], "kubectl-scale");
  EXPECT_EQ(mf[1]["time"], FormatRfc3339(At(60)));
  EXPECT_EQ(
      mf[1]["fieldsV1"],
      json::parse(
          R"({"f:metadata":{"f:labels":{"f:tier":{}}},"f:spec":{"f:replicas":{}}})"));
  EXPECT_FALSE(mf[0]["fieldsV1"]["f:spec"].contains("f:replicas"));
  EXPECT_TRUE(mf[0]["fieldsV1"]["f:spec"].contains("f:selector"));
  EXPECT_EQ(mf[0]["time"], FormatRfc3339(At(0)));

  // A write that changes nothing keeps every entry and time.
  auto same =
      UpdateManagedFields(*r, *r, Updater("other", 120), S(), DeploymentType());
  ASSERT_TRUE(same.ok());
  EXPECT_EQ((*same)["metadata"]["managedFields"], mf);

  // Status changes on the main resource are not tracked.
  json st = *r;
  st["status"]["replicas"] = 3;
  auto s2 =
      UpdateManagedFields(*r, st, Updater("ctrl", 130), S(), DeploymentType());
  ASSERT_TRUE(s2.ok());
  EXPECT_EQ((*s2)["metadata"]["managedFields"].size(), 2u);
}

TEST(UpdateManagedFieldsTest, ClientResetAndUntrackedObjects) {
  auto created =
      UpdateManagedFields(nullptr, NginxDeployment(),
                          Updater("kubectl-create", 0), S(), DeploymentType());
  ASSERT_TRUE(created.ok());
  json cleared = *created;
  cleared["metadata"]["managedFields"] = json::parse("[{}]");
  auto r = UpdateManagedFields(*created, cleared, Updater("x", 5), S(),
                               DeploymentType());
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE((*r)["metadata"].contains("managedFields"));
  // Once untracked, later updates stay untracked.
  json next = *r;
  next["spec"]["replicas"] = 2;
  auto r2 =
      UpdateManagedFields(*r, next, Updater("x", 6), S(), DeploymentType());
  ASSERT_TRUE(r2.ok());
  EXPECT_FALSE((*r2)["metadata"].contains("managedFields"));
  // An empty list is not a reset: the live entries stay.
  json empty_list = *created;
  empty_list["metadata"]["managedFields"] = json::array();
  auto r3 = UpdateManagedFields(*created, empty_list, Updater("x", 7), S(),
                                DeploymentType());
  ASSERT_TRUE(r3.ok());
  EXPECT_EQ((*r3)["metadata"]["managedFields"],
            (*created)["metadata"]["managedFields"]);
}

json ApplyConfig(int replicas, const std::string& image) {
  json c = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"web","namespace":"default"},
    "spec":{"selector":{"matchLabels":{"app":"web"}},
      "template":{"metadata":{"labels":{"app":"web"}},
        "spec":{"containers":[{"name":"nginx","image":"nginx"}]}}}})");
  c["spec"]["replicas"] = replicas;
  c["spec"]["template"]["spec"]["containers"][0]["image"] = image;
  return c;
}

TEST(ApplyTest, CreateRecordsApplyEntry) {
  auto r = Apply(nullptr, ApplyConfig(2, "nginx:1"), Applier("m1", 0), S(),
                 DeploymentType());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->created);
  EXPECT_EQ(r->object["spec"]["replicas"], 2);
  const json& mf = r->object["metadata"]["managedFields"];
  ASSERT_EQ(mf.size(), 1u);
  EXPECT_EQ(mf[0]["operation"], "Apply");
  EXPECT_EQ(mf[0]["manager"], "m1");
  EXPECT_EQ(mf[0]["apiVersion"], "apps/v1");
  EXPECT_EQ(mf[0]["fieldsV1"],
            json::parse(R"({"f:spec":{"f:replicas":{},"f:selector":{},
    "f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{
      "k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:name":{}}}}}}})"))
      << mf[0]["fieldsV1"].dump();
}

// Found by fuzz_apply: metadata that is not an object must not throw (the
// registry's decode check answers 400 afterwards).
TEST(ApplyTest, MetadataThatIsNotAnObjectDoesNotThrow) {
  json live = ApplyConfig(2, "nginx:1");
  auto first = Apply(nullptr, live, Applier("m1", 0), S(), DeploymentType());
  ASSERT_TRUE(first.ok()) << first.status().message();
  json config = ApplyConfig(3, "nginx:2");
  config["metadata"] = "web";
  for (const json& base : {first->object, json(nullptr)}) {
    EXPECT_NO_THROW({
      auto r = Apply(base, config, Applier("m2", 0), S(), DeploymentType());
      if (r.ok()) {
        EXPECT_FALSE(r->object["metadata"].is_object());
      }
    });
  }
}

TEST(ApplyTest, ConflictMessageAndCausesVerbatim) {
  auto first = Apply(nullptr, ApplyConfig(2, "nginx:1"), Applier("m1", 0), S(),
                     DeploymentType());
  ASSERT_TRUE(first.ok());
  // A second applier changing one field another applier owns.
  auto one = Apply(first->object, ApplyConfig(2, "nginx:2"), Applier("m2", 10),
                   S(), DeploymentType());
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.status().code(), StatusCode::kConflict);
  EXPECT_EQ(one.status().message(),
            "Apply failed with 1 conflict: conflict with \"m1\": "
            ".spec.template.spec.containers[name=\"nginx\"].image");
  ASSERT_EQ(one.status().details().causes.size(), 1u);
  EXPECT_EQ(
      one.status().details().causes[0],
      (StatusCause{"FieldManagerConflict", "conflict with \"m1\"",
                   ".spec.template.spec.containers[name=\"nginx\"].image"}));

  // An Update manager: named with its apiVersion.
  json scaled = first->object;
  scaled["spec"]["replicas"] = 5;
  auto up =
      UpdateManagedFields(first->object, scaled, Updater("kubectl-scale", 20),
                          S(), DeploymentType());
  ASSERT_TRUE(up.ok());
  auto two = Apply(*up, ApplyConfig(3, "nginx:2"), Applier("m2", 30), S(),
                   DeploymentType());
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.status().message(),
            "Apply failed with 2 conflicts: conflicts with \"kubectl-scale\" "
            "using apps/v1:\n"
            "- .spec.replicas\n"
            "conflicts with \"m1\":\n"
            "- .spec.template.spec.containers[name=\"nginx\"].image");
  ASSERT_EQ(two.status().details().causes.size(), 2u);
  EXPECT_EQ(two.status().details().causes[0].message,
            "conflict with \"kubectl-scale\" using apps/v1");
  EXPECT_EQ(two.status().details().causes[0].field, ".spec.replicas");
}

TEST(ApplyTest, ForceTakesOwnership) {
  auto first = Apply(nullptr, ApplyConfig(2, "nginx:1"), Applier("m1", 0), S(),
                     DeploymentType());
  ASSERT_TRUE(first.ok());
  auto forced = Apply(first->object, ApplyConfig(2, "nginx:2"),
                      Applier("m2", 10, true), S(), DeploymentType());
  ASSERT_TRUE(forced.ok()) << forced.status().message();
  EXPECT_EQ(
      forced->object["spec"]["template"]["spec"]["containers"][0]["image"],
      "nginx:2");
  const json& mf = forced->object["metadata"]["managedFields"];
  ASSERT_EQ(mf.size(), 2u);
  EXPECT_EQ(mf[0]["manager"], "m1");
  EXPECT_EQ(mf[1]["manager"], "m2");
  const json& c1 = mf[0]["fieldsV1"]["f:spec"]["f:template"]["f:spec"]
                     ["f:containers"]["k:{\"name\":\"nginx\"}"];
  EXPECT_FALSE(c1.contains("f:image"));
  EXPECT_TRUE(c1.contains("f:name"));  // shared: same value
  EXPECT_TRUE(mf[0]["fieldsV1"]["f:spec"].contains("f:replicas"));
  EXPECT_TRUE(mf[1]["fieldsV1"]["f:spec"].contains("f:replicas"));
}

TEST(ApplyTest, SharedOwnershipKeepsFieldUntilLastApplierDropsIt) {
  auto first = Apply(nullptr, ApplyConfig(2, "nginx:1"), Applier("m1", 0), S(),
                     DeploymentType());
  ASSERT_TRUE(first.ok());
  auto second = Apply(first->object, ApplyConfig(2, "nginx:1"),
                      Applier("m2", 10), S(), DeploymentType());
  ASSERT_TRUE(second.ok()) << second.status().message();
  // m1 stops applying replicas: m2 still owns it, so it stays.
  json no_replicas = ApplyConfig(2, "nginx:1");
  no_replicas["spec"].erase("replicas");
  auto third = Apply(second->object, no_replicas, Applier("m1", 20), S(),
                     DeploymentType());
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->object["spec"]["replicas"], 2);
  // m2 stops too: now it is removed.
  auto fourth = Apply(third->object, no_replicas, Applier("m2", 30), S(),
                      DeploymentType());
  ASSERT_TRUE(fourth.ok());
  EXPECT_FALSE(fourth->object["spec"].contains("replicas"));
}

TEST(ApplyTest, RemovesFieldsAndItemsNoLongerApplied) {
  json cfg = ApplyConfig(2, "nginx:1");
  cfg["metadata"]["labels"] = {{"a", "1"}, {"b", "2"}};
  cfg["spec"]["template"]["spec"]["containers"].push_back(
      {{"name", "side"}, {"image", "busybox"}});
  auto first = Apply(nullptr, cfg, Applier("m1", 0), S(), DeploymentType());
  ASSERT_TRUE(first.ok());
  // Another manager adds a label of its own.
  json other = first->object;
  other["metadata"]["labels"]["c"] = "3";
  auto up = UpdateManagedFields(first->object, other, Updater("editor", 5), S(),
                                DeploymentType());
  ASSERT_TRUE(up.ok());
  json cfg2 = ApplyConfig(2, "nginx:1");
  cfg2["metadata"]["labels"] = {{"a", "1"}};
  auto r = Apply(*up, cfg2, Applier("m1", 10), S(), DeploymentType());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->object["metadata"]["labels"], json({{"a", "1"}, {"c", "3"}}));
  ASSERT_EQ(r->object["spec"]["template"]["spec"]["containers"].size(), 1u);
  EXPECT_EQ(r->object["spec"]["template"]["spec"]["containers"][0]["name"],
            "nginx");
}

TEST(ApplyTest, TwoKeyListMapsMergeByBothKeys) {
  json pod =
      json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
    "spec":{"containers":[{"name":"c","image":"i",
      "ports":[{"containerPort":53,"protocol":"UDP"},{"containerPort":53}]}]}})");
  ApplyOptions o{
      "m1", false, "v1", "Pod", "", At(0), DefaultResetFields("", true)};
  auto r = Apply(nullptr, pod, o, S(), PodType());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const json& ports =
      r->object["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]
               ["f:containers"]["k:{\"name\":\"c\"}"]["f:ports"];
  EXPECT_TRUE(ports.contains("k:{\"containerPort\":53,\"protocol\":\"UDP\"}"));
  EXPECT_TRUE(ports.contains("k:{\"containerPort\":53,\"protocol\":\"TCP\"}"));
  // A second applier adds a port with the same number and another protocol.
  json more =
      json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
    "spec":{"containers":[{"name":"c","ports":[{"containerPort":53,"protocol":"SCTP"}]}]}})");
  ApplyOptions o2 = o;
  o2.manager = "m2";
  auto r2 = Apply(r->object, more, o2, S(), PodType());
  ASSERT_TRUE(r2.ok()) << r2.status().message();
  EXPECT_EQ(r2->object["spec"]["containers"][0]["ports"].size(), 3u);
  // Duplicate keys in a configuration are rejected (a 500 without a
  // reason, as structured-merge-diff's typing error is on a real server).
  json dup = pod;
  dup["spec"]["containers"][0]["ports"][1]["protocol"] = "UDP";
  EXPECT_EQ(Apply(nullptr, dup, o, S(), PodType()).status().code(),
            StatusCode::kUnclassified);
}

// A field the schema does not declare fails the typing of the
// configuration, wherever it is; a struct that keeps unknown fields and
// the root's apiVersion and kind are not such fields.
TEST(ApplyTest, UndeclaredFieldsFailTheConfiguration) {
  ApplyOptions o{
      "m1", false, "v1", "Pod", "", At(0), DefaultResetFields("", true)};
  json pod =
      json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p",
    "namespace":"ns"},"spec":{"containers":[{"name":"c","image":"i",
    "colour":"red"}]}})");
  auto r = Apply(nullptr, pod, o, S(), PodType());
  ASSERT_EQ(r.status().code(), StatusCode::kUnclassified);
  EXPECT_EQ(r.status().message(),
            "failed to create typed patch object (ns/p; /v1, Kind=Pod): "
            ".spec.containers[name=\"c\"].colour: field not declared in "
            "schema");
  pod["spec"]["containers"][0].erase("colour");
  pod["metadata"]["labelz"] = json::object();
  r = Apply(nullptr, pod, o, S(), PodType());
  ASSERT_EQ(r.status().code(), StatusCode::kUnclassified);
  EXPECT_NE(r.status().message().find(
                ".metadata.labelz: field not declared in schema"),
            std::string::npos);
  pod["metadata"].erase("labelz");
  EXPECT_TRUE(Apply(nullptr, pod, o, S(), PodType()).ok());
}

TEST(ApplyTest, BodyMustNameTheKind) {
  json cfg = ApplyConfig(1, "x");
  cfg.erase("apiVersion");
  cfg.erase("kind");
  auto r = Apply(nullptr, cfg, Applier("m", 0), S(), DeploymentType());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(r.status().message(), "invalid object type: /, Kind=");
  json mf = ApplyConfig(1, "x");
  mf["metadata"]["managedFields"] = json::array();
  EXPECT_EQ(Apply(nullptr, mf, Applier("m", 0), S(), DeploymentType())
                .status()
                .message(),
            "metadata.managedFields must be nil");
}

TEST(ApplyTest, FirstApplyOnUntrackedObjectCreditsBeforeFirstApply) {
  json live = NginxDeployment();
  json cfg = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"nginx"},"spec":{"replicas":4}})");
  auto r = Apply(live, cfg, Applier("m", 10), S(), DeploymentType());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "Apply failed with 1 conflict: conflict with "
            "\"before-first-apply\" using "
            "apps/v1: .spec.replicas");
}

TEST(ApplyTest, KubectlMigratesFromClientSideApply) {
  // An object made by client-side apply: the annotation and an Update entry.
  json cfg = ApplyConfig(2, "nginx:1");
  json live = cfg;
  live["metadata"]["annotations"]
      ["kubectl.kubernetes.io/last-applied-configuration"] = cfg.dump() + "\n";
  auto created = UpdateManagedFields(nullptr, live,
                                     Updater("kubectl-client-side-apply", 0),
                                     S(), DeploymentType());
  ASSERT_TRUE(created.ok());
  json cfg2 = ApplyConfig(3, "nginx:1");
  // Another manager gets a conflict...
  EXPECT_FALSE(
      Apply(*created, cfg2, Applier("other", 5), S(), DeploymentType()).ok());
  // ...but kubectl takes over what the annotation recorded, and rewrites it.
  auto r = Apply(*created, cfg2, Applier("kubectl", 5), S(), DeploymentType());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->object["spec"]["replicas"], 3);
  EXPECT_EQ(r->object["metadata"]["annotations"]
                     ["kubectl.kubernetes.io/last-applied-configuration"],
            cfg2.dump() + "\n");
}

}  // namespace
}  // namespace kmock::fieldmanager

namespace kmock::fieldmanager {
namespace {

TEST(ApplyTest, SetListsUnionAcrossAppliers) {
  auto cfg = [](const char* fin) {
    json c = json::parse(
        R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}})");
    c["metadata"]["finalizers"] = json::array({fin});
    return c;
  };
  ApplyOptions o{"m1", false, "v1", "Pod", "", At(0), {}};
  auto r = Apply(nullptr, cfg("a"), o, S(), PodType());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->object["metadata"]["managedFields"][0]["fieldsV1"]
                       ["f:metadata"]["f:finalizers"]
                           .contains("v:\"a\""));
  o.manager = "m2";
  auto r2 = Apply(r->object, cfg("b"), o, S(), PodType());
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->object["metadata"]["finalizers"], json::array({"a", "b"}));
}

// A status write takes only status fields: the spec's applier keeps
// everything it owns (reset fields bound the writer, not the others).
TEST(UpdateManagedFieldsTest, StatusWriteKeepsTheSpecAppliersEntry) {
  auto applied = Apply(nullptr, ApplyConfig(2, "nginx:1"), Applier("m1", 0),
                       S(), DeploymentType());
  ASSERT_TRUE(applied.ok()) << applied.status().message();
  applied->object["status"] = json::object();  // as the registry stores it
  json next = applied->object;
  next["status"]["replicas"] = 2;
  ManagerInfo ctrl = Updater("kube-controller-manager", 30);
  ctrl.subresource = "status";
  ctrl.reset_fields = DefaultResetFields("status", true);
  auto r =
      UpdateManagedFields(applied->object, next, ctrl, S(), DeploymentType());
  ASSERT_TRUE(r.ok());
  const json& mf = (*r)["metadata"]["managedFields"];
  ASSERT_EQ(mf.size(), 2u);
  EXPECT_EQ(mf[0]["manager"], "m1");
  EXPECT_EQ(mf[0]["fieldsV1"],
            applied->object["metadata"]["managedFields"][0]["fieldsV1"]);
  EXPECT_EQ(mf[1]["manager"], "kube-controller-manager");
  EXPECT_EQ(mf[1]["subresource"], "status");
  EXPECT_EQ(mf[1]["fieldsV1"],
            json::parse(R"({"f:status":{"f:replicas":{}}})"));
}

// An update that sends the stored entries back (or none, or writes status)
// keeps the entries it does not touch as stored; sending the same entries
// in another order takes the general path, which decodes every entry. Both
// must give the same list for every kind of change.
TEST(UpdateManagedFieldsTest, StoredEntriesPathMatchesGeneralPath) {
  auto created =
      UpdateManagedFields(nullptr, NginxDeployment(),
                          Updater("kubectl-create", 0), S(), DeploymentType());
  ASSERT_TRUE(created.ok());
  json scaled = *created;
  scaled["spec"]["replicas"] = 3;
  scaled["metadata"]["annotations"] = {{"note", "x"}};
  auto two = UpdateManagedFields(*created, scaled, Updater("kubectl-scale", 60),
                                 S(), DeploymentType());
  ASSERT_TRUE(two.ok());
  json old = *two;
  old["status"] = {{"replicas", 3}};
  ASSERT_EQ(old["metadata"]["managedFields"].size(), 2u);

  using Change = void (*)(json&);
  const std::vector<std::pair<const char*, Change>> changes = {
      {"nothing", [](json&) {}},
      {"a field no one owns", [](json& o) { o["spec"]["paused"] = true; }},
      {"a field another manager owns",
       [](json& o) { o["spec"]["replicas"] = 5; }},
      {"a field the writer owns",
       [](json& o) { o["metadata"]["annotations"]["note"] = "y"; }},
      {"removing another manager's field",
       [](json& o) { o["spec"].erase("revisionHistoryLimit"); }},
      {"removing every field of a manager",
       [](json& o) {
         o["spec"]["replicas"] = 1;
         o["metadata"].erase("annotations");
       }},
      {"a list item",
       [](json& o) {
         o["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2";
       }},
  };
  for (const auto& [what, change] : changes) {
    for (const char* writer : {"kubectl-scale", "kubectl-edit"}) {
      json next = old;
      change(next);
      auto stored_path = UpdateManagedFields(old, next, Updater(writer, 120),
                                             S(), DeploymentType());
      json& sent = next["metadata"]["managedFields"];
      std::reverse(sent.begin(), sent.end());
      auto general_path = UpdateManagedFields(old, next, Updater(writer, 120),
                                              S(), DeploymentType());
      ASSERT_TRUE(stored_path.ok() && general_path.ok()) << what;
      EXPECT_EQ((*stored_path)["metadata"]["managedFields"],
                (*general_path)["metadata"]["managedFields"])
          << what << " by " << writer;
      EXPECT_EQ(*stored_path, *general_path) << what << " by " << writer;
    }
  }
  // A status write (the stored entries, spec reset), by a new manager and
  // by one already there.
  for (const char* writer : {"kube-controller-manager", "kubectl-scale"}) {
    json next = old;
    next["status"]["replicas"] = 4;
    next["spec"]["replicas"] = 9;  // ignored by the status strategy's reset
    ManagerInfo m = Updater(writer, 120);
    m.subresource = "status";
    m.reset_fields = DefaultResetFields("status", true);
    auto r = UpdateManagedFields(old, next, m, S(), DeploymentType());
    ASSERT_TRUE(r.ok());
    const json& mf = (*r)["metadata"]["managedFields"];
    ASSERT_EQ(mf.size(), 3u) << mf.dump();
    EXPECT_EQ(mf[0], old["metadata"]["managedFields"][0]);
    EXPECT_EQ(mf[2]["subresource"], "status");
    EXPECT_EQ(mf[2]["fieldsV1"],
              json::parse(R"({"f:status":{"f:replicas":{}}})"));
  }
}

// A comparison that skips a top-level member finds what the full one finds
// outside it, and nothing inside it, whether the member changed or is
// missing on one side.
TEST(CompareTest, SkippedTopLevelMembersAreLeftOut) {
  TypeResolver resolver = [](std::string_view n) { return S().Find(n); };
  const TypeNode rt = TypeNode::ForType(&resolver, DeploymentType());
  json old = NginxDeployment();
  json next = old;
  next["spec"]["replicas"] = 3;
  next["status"]["replicas"] = 3;
  next["metadata"]["labels"]["tier"] = "web";
  json no_spec = next;
  no_spec.erase("spec");
  FieldSet spec;
  spec.Insert({"f:spec"});
  for (const json* rhs : {&next, &no_spec}) {
    Comparison full = Compare(old, *rhs, rt);
    Comparison skipped = Compare(old, *rhs, rt, {"spec"});
    EXPECT_TRUE(full.modified.Has({"f:status", "f:replicas"}) ||
                full.added.Has({"f:status", "f:replicas"}));
    EXPECT_FALSE(full.modified.RecursiveDifference(spec) == full.modified &&
                 full.removed.RecursiveDifference(spec) == full.removed)
        << "the change must touch spec for the test to mean anything";
    EXPECT_EQ(skipped.added, full.added.RecursiveDifference(spec));
    EXPECT_EQ(skipped.modified, full.modified.RecursiveDifference(spec));
    EXPECT_EQ(skipped.removed, full.removed.RecursiveDifference(spec));
  }
}

// A hostile apply body nested a million levels deep used to overflow the
// stack of the recursive merge; it is a 400 now, like the other patch types.
TEST(ApplyTest, DeeplyNestedConfigurationIsABadRequest) {
  json cfg = ApplyConfig(2, "nginx:1");
  json deep = json::array();
  for (int i = 0; i < 1000000; ++i) {
    json outer = json::array();
    outer.push_back(std::move(deep));
    deep = std::move(outer);
  }
  cfg["spec"]["template"]["metadata"]["annotations"] = {{"a", "b"}};
  cfg["spec"]["template"]["spec"]["x"] = std::move(deep);
  auto r =
      Apply(NginxDeployment(), cfg, Applier("m1", 0), S(), DeploymentType());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_NE(r.status().message().find("nests deeper than"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace kmock::fieldmanager
