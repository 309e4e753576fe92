// Rows of the storage, admissionregistration, apiregistration and
// flowcontrol kinds, printed through the real catalog.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/builtin_catalog.h"
#include "api/kinds/util.h"
#include "common/clock.h"

namespace kmock::api::kinds {
namespace {

using Row = std::vector<json>;

constexpr const char* kCreated = "2024-05-01T10:00:00Z";

TimePoint Now() {
  TimePoint t;
  EXPECT_TRUE(ParseRfc3339("2024-05-01T10:05:00Z", &t));
  return t;
}

json Obj(const std::string& name, json extra = json::object()) {
  json obj = {{"metadata", {{"name", name}, {"creationTimestamp", kCreated}}}};
  obj.update(extra);
  return obj;
}

Row RowOf(const char* group, const char* plural, const json& obj) {
  return testing::RowOf(group, plural, obj, Now());
}

TEST(PlatformCellsTest, StorageClass) {
  json sc = Obj("fast", {{"provisioner", "csi.example.com"},
                         {"reclaimPolicy", "Retain"},
                         {"volumeBindingMode", "WaitForFirstConsumer"},
                         {"allowVolumeExpansion", true}});
  EXPECT_EQ(RowOf("storage.k8s.io", "storageclasses", sc),
            (Row{"fast", "csi.example.com", "Retain", "WaitForFirstConsumer",
                 true, "5m"}));

  json plain = Obj("slow", {{"provisioner", "p"}});
  plain["metadata"]["annotations"] = {
      {"storageclass.kubernetes.io/is-default-class", "yes"}};
  Row row = RowOf("storage.k8s.io", "storageclasses", plain);
  EXPECT_EQ(row[0], "slow");
  EXPECT_EQ(row[4], false);  // absent allowVolumeExpansion

  json def = Obj("std");
  def["metadata"]["annotations"] = {
      {"storageclass.kubernetes.io/is-default-class", "true"}};
  EXPECT_EQ(RowOf("storage.k8s.io", "storageclasses", def)[0], "std (default)");
  json beta = Obj("old");
  beta["metadata"]["annotations"] = {
      {"storageclass.beta.kubernetes.io/is-default-class", "true"}};
  EXPECT_EQ(RowOf("storage.k8s.io", "storageclasses", beta)[0],
            "old (default)");
}

TEST(PlatformCellsTest, CsiDriverTokenRequests) {
  json spec = {{"attachRequired", true},
               {"podInfoOnMount", false},
               {"storageCapacity", false},
               {"requiresRepublish", false},
               {"volumeLifecycleModes", {"Persistent", "Ephemeral"}}};
  json driver = Obj("csi.example.com", {{"spec", spec}});
  // Boolean JSONPath columns are JSON booleans, as kube-apiserver sends.
  EXPECT_EQ(RowOf("storage.k8s.io", "csidrivers", driver),
            (Row{"csi.example.com", true, false, false, "<unset>", false,
                 "Persistent,Ephemeral", "5m"}));

  driver["spec"]["tokenRequests"] = json::array();
  EXPECT_EQ(RowOf("storage.k8s.io", "csidrivers", driver)[4], "<unset>");
  driver["spec"]["tokenRequests"] = {
      {{"audience", "vault"}},
      {{"audience", "gcp"}, {"expirationSeconds", 3600}}};
  EXPECT_EQ(RowOf("storage.k8s.io", "csidrivers", driver)[4], "vault,gcp");
}

TEST(PlatformCellsTest, CsiStorageCapacity) {
  json cap = Obj("cap-1", {{"storageClassName", "fast"}});
  EXPECT_EQ(RowOf("storage.k8s.io", "csistoragecapacities", cap),
            (Row{"cap-1", "fast", "<unset>"}));
  cap["capacity"] = "1536Mi";
  EXPECT_EQ(RowOf("storage.k8s.io", "csistoragecapacities", cap),
            (Row{"cap-1", "fast", "1536Mi"}));
}

TEST(PlatformCellsTest, VolumeAttachment) {
  json va =
      Obj("csi-123", {{"spec",
                       {{"attacher", "csi.example.com"},
                        {"nodeName", "node-1"},
                        {"source", {{"persistentVolumeName", "pv-1"}}}}}});
  EXPECT_EQ(RowOf("storage.k8s.io", "volumeattachments", va),
            (Row{"csi-123", "csi.example.com", "pv-1", "node-1", false, "5m"}));
  va["status"] = {{"attached", true}};
  EXPECT_EQ(RowOf("storage.k8s.io", "volumeattachments", va)[4], true);
}

TEST(PlatformCellsTest, ValidatingAdmissionPolicyParamKind) {
  json policy =
      Obj("p", {{"spec", {{"validations", {{{"expression", "1"}}}}}}});
  EXPECT_EQ(RowOf("admissionregistration.k8s.io", "validatingadmissionpolicies",
                  policy),
            (Row{"p", 1, "<unset>", "5m"}));
  policy["spec"]["paramKind"] = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}};
  EXPECT_EQ(RowOf("admissionregistration.k8s.io", "validatingadmissionpolicies",
                  policy)[2],
            "v1/ConfigMap");
}

std::string ParamRef(json ref) {
  json binding = Obj("b", {{"spec", {{"policyName", "p"}}}});
  if (!ref.is_null()) binding["spec"]["paramRef"] = std::move(ref);
  Row row = RowOf("admissionregistration.k8s.io",
                  "validatingadmissionpolicybindings", binding);
  EXPECT_EQ(row.size(), 4u);
  EXPECT_EQ(row[1], "p");
  return row[2].get<std::string>();
}

TEST(PlatformCellsTest, ValidatingAdmissionPolicyBindingParamRef) {
  EXPECT_EQ(ParamRef(nullptr), "<unset>");
  EXPECT_EQ(ParamRef({{"name", "cfg"}, {"namespace", "team"}}), "team/cfg");
  EXPECT_EQ(ParamRef({{"name", "cfg"}}), "*/cfg");
  EXPECT_EQ(ParamRef({{"parameterNotFoundAction", "Deny"}}), "<unset>");
  // The printer uses the selector's generated String(), not the label
  // query form.
  EXPECT_EQ(ParamRef({{"selector", json::object()}}),
            "&LabelSelector{MatchLabels:map[string]string{},"
            "MatchExpressions:[]LabelSelectorRequirement{},}");
  EXPECT_EQ(
      ParamRef({{"selector",
                 {{"matchLabels", {{"tier", "web"}, {"app", "a"}}},
                  {"matchExpressions",
                   {{{"key", "env"},
                     {"operator", "In"},
                     {"values", {"prod", "dev"}}},
                    {{"key", "gone"}, {"operator", "DoesNotExist"}}}}}}}),
      "&LabelSelector{MatchLabels:map[string]string{app: a,tier: web,},"
      "MatchExpressions:[]LabelSelectorRequirement{"
      "LabelSelectorRequirement{Key:env,Operator:In,Values:[prod dev],},"
      "LabelSelectorRequirement{Key:gone,Operator:DoesNotExist,Values:[],},"
      "},}");
}

TEST(PlatformCellsTest, FlowSchema) {
  json fs = Obj("global-default",
                {{"spec",
                  {{"priorityLevelConfiguration", {{"name", "global"}}},
                   {"matchingPrecedence", 9900},
                   {"distinguisherMethod", {{"type", "ByUser"}}}}}});
  EXPECT_EQ(RowOf("flowcontrol.apiserver.k8s.io", "flowschemas", fs),
            (Row{"global-default", "global", 9900, "ByUser", "5m", "?"}));
  fs["spec"].erase("distinguisherMethod");
  fs["status"] = {
      {"conditions",
       {{{"type", "Other"}, {"status", "True"}},
        {{"type", "Dangling"}, {"status", "False"}, {"reason", "Found"}},
        {{"type", "Dangling"}, {"status", "True"}}}}};
  EXPECT_EQ(RowOf("flowcontrol.apiserver.k8s.io", "flowschemas", fs),
            (Row{"global-default", "global", 9900, "<none>", "5m", "False"}));
}

// The printer puts the integers themselves into the row (kubectl prints
// them alike); orNone prints their text, and 0 is not empty.
TEST(PlatformCellsTest, PriorityLevelConfigurationOrNone) {
  json exempt = Obj("exempt", {{"spec", {{"type", "Exempt"}}}});
  EXPECT_EQ(
      RowOf("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations",
            exempt),
      (Row{"exempt", "Exempt", "<none>", "<none>", "<none>", "<none>", "5m"}));

  json limited = Obj("workload-low", {{"spec",
                                       {{"type", "Limited"},
                                        {"limited",
                                         {{"nominalConcurrencyShares", 0},
                                          {"limitResponse",
                                           {{"type", "Queuing"},
                                            {"queuing",
                                             {{"queues", 128},
                                              {"handSize", 6},
                                              {"queueLengthLimit", 0}}}}}}}}}});
  EXPECT_EQ(RowOf("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations",
                  limited),
            (Row{"workload-low", "Limited", "0", "128", "6", "0", "5m"}));

  json reject = limited;
  reject["spec"]["limited"]["nominalConcurrencyShares"] = 30;
  reject["spec"]["limited"]["limitResponse"] = {{"type", "Reject"}};
  EXPECT_EQ(RowOf("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations",
                  reject),
            (Row{"workload-low", "Limited", "30", "<none>", "<none>", "<none>",
                 "5m"}));
}

TEST(PlatformCellsTest, ApiService) {
  json local =
      Obj("v1.apps", {{"spec", {{"group", "apps"}, {"version", "v1"}}}});
  EXPECT_EQ(RowOf("apiregistration.k8s.io", "apiservices", local),
            (Row{"v1.apps", "Local", "Unknown", "5m"}));

  json remote =
      Obj("v1beta1.metrics.k8s.io",
          {{"spec",
            {{"service",
              {{"namespace", "kube-system"}, {"name", "metrics-server"}}}}}});
  auto available = [&](json cond) {
    remote["status"] = {{"conditions", {std::move(cond)}}};
    return RowOf("apiregistration.k8s.io", "apiservices", remote);
  };
  EXPECT_EQ(available({{"type", "Available"},
                       {"status", "False"},
                       {"reason", "MissingEndpoints"}}),
            (Row{"v1beta1.metrics.k8s.io", "kube-system/metrics-server",
                 "False (MissingEndpoints)", "5m"}));
  EXPECT_EQ(
      available(
          {{"type", "Available"}, {"status", "True"}, {"reason", "Passed"}})[2],
      "True");
  EXPECT_EQ(available({{"type", "Available"}, {"status", "Unknown"}})[2],
            "Unknown");
  EXPECT_EQ(available({{"type", "Other"}, {"status", "True"}})[2], "Unknown");
}

}  // namespace
}  // namespace kmock::api::kinds
