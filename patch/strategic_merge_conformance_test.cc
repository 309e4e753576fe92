// Conformance table for strategic merge patch against the real embedded
// schema (api::Schema::Builtin()).
//
// Every list field the schema gives a patch strategy is listed below with
// sample elements in its own vocabulary; from them the table derives one
// case per directive (merge by key, `$patch: delete`, `$patch: replace`,
// `$setElementOrder`, `$deleteFromPrimitiveList`, ...). The expected results
// follow kube-apiserver's documented strategic-merge-patch behaviour (the
// strategic-merge-patch and preserve-order design proposals, and the cases
// apimachinery's strategicpatch tests pin down), rewritten here as our own
// cases. Hand-written cases cover `$retainKeys`, map directives and the
// known edge cases (missing merge keys, nulls, duplicate keys, ordering).
//
// SchemaCoverage walks the schema at run time: a field that gains a patch
// strategy or merge key without a matching case here fails the test.
#include <gtest/gtest.h>

#include <cctype>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/schema.h"
#include "common/status.h"
#include "patch/patch_status.h"
#include "patch/strategic_merge_patch.h"

namespace kmock::patch {
namespace {

using json = nlohmann::json;

constexpr char kCore[] = "io.k8s.api.core.v1.";
constexpr char kApps[] = "io.k8s.api.apps.v1.";
constexpr char kMeta[] = "io.k8s.apimachinery.pkg.apis.meta.v1.";

std::string Core(const char* name) { return std::string(kCore) + name; }
std::string Apps(const char* name) { return std::string(kApps) + name; }
std::string Meta(const char* name) { return std::string(kMeta) + name; }
std::string Api(const char* group_version, const char* name) {
  return std::string("io.k8s.api.") + group_version + "." + name;
}

// What a case must show for a field, by the field's patch metadata.
constexpr char kMergeByKey[] = "merge-by-key";
constexpr char kDeleteElement[] = "patch-delete";
constexpr char kReplaceList[] = "patch-replace";
constexpr char kSetOrder[] = "set-element-order";
constexpr char kSetOrderWithDelete[] = "set-element-order+delete";
constexpr char kMissingKey[] = "missing-merge-key";
constexpr char kMergeAsSet[] = "merge-as-set";
constexpr char kDeleteFromPrimitive[] = "delete-from-primitive-list";
constexpr char kRetainKeys[] = "retain-keys";
constexpr char kReplaceMap[] = "replace-map";

// "io.k8s.api.core.v1.Container.env#patch-delete".
std::string Tag(const std::string& type, const std::string& field,
                const char* directive) {
  return type + "." + field + "#" + directive;
}

struct Case {
  std::string name;  // gtest parameter name: letters, digits, '_'
  std::string root;  // the type the patch is applied to
  json original;
  json patch;
  json expected;  // the result, when `error` is empty
  // For failures: the code and a substring of the message.
  StatusCode error_code = StatusCode::kOk;
  std::string error;
  std::vector<std::string> covers;  // Tag()s this case demonstrates
};

// A list of maps merged by key, with samples: `a` and `b` start in the live
// list, `b_patch` changes `b` into `b_merged`, `c` is new. The merge key is
// written out as upstream declares it and checked against the schema.
struct KeyedList {
  std::vector<std::string> owners;  // every type declaring the field
  std::string field;
  std::string merge_key;
  std::string a;
  std::string b;
  std::string b_patch;
  std::string b_merged;
  std::string c;
};

// A list of scalars with patch strategy "merge" (merged as a set).
struct PrimitiveList {
  std::vector<std::string> owners;
  const char* field;
  const char* a;  // JSON scalars
  const char* b;
  const char* c;
};

const std::vector<std::string> kContainerTypes = {
    Core("Container"), Core("EphemeralContainerCommon"),
    Core("EphemeralContainer")};

// Conditions merged by `type`: `b` changes status, `c` is appended.
KeyedList Conditions(std::vector<std::string> owners, const std::string& a,
                     const std::string& b, const std::string& c) {
  auto condition = [](const std::string& type, const char* rest) {
    return R"({"type":")" + type + "\"" + rest + "}";
  };
  return {std::move(owners),
          "conditions",
          "type",
          condition(a, R"(,"status":"True")"),
          condition(b, R"(,"status":"False","reason":"Waiting")"),
          condition(b, R"(,"status":"True")"),
          condition(b, R"(,"status":"True","reason":"Waiting")"),
          condition(c, R"(,"status":"Unknown")")};
}

const std::vector<KeyedList>& KeyedLists() {
  static const auto* lists = new std::vector<KeyedList>{
      // PodSpec.
      {{Core("PodSpec")},
       "volumes",
       "name",
       R"({"name":"data","emptyDir":{}})",
       R"({"name":"config","configMap":{"name":"app-config"}})",
       R"({"name":"config","configMap":{"defaultMode":420}})",
       R"({"name":"config","configMap":{"name":"app-config","defaultMode":420}})",
       R"({"name":"cache","emptyDir":{"medium":"Memory"}})"},
      {{Core("PodSpec")},
       "initContainers",
       "name",
       R"({"name":"migrate","image":"flyway:10"})",
       R"({"name":"wait-db","image":"busybox:1.36","command":["sh","-c","sleep 1"]})",
       R"({"name":"wait-db","image":"busybox:1.37"})",
       R"({"name":"wait-db","image":"busybox:1.37","command":["sh","-c","sleep 1"]})",
       R"({"name":"seed","image":"seed:1"})"},
      // args has no patch strategy: the patch's list replaces the live one.
      {{Core("PodSpec")},
       "containers",
       "name",
       R"({"name":"app","image":"nginx:1.25"})",
       R"({"name":"sidecar","image":"envoy:1.29","args":["--log-level","info"]})",
       R"({"name":"sidecar","args":["--log-level","debug"]})",
       R"({"name":"sidecar","image":"envoy:1.29","args":["--log-level","debug"]})",
       R"({"name":"metrics","image":"exporter:2"})"},
      {{Core("PodSpec")},
       "ephemeralContainers",
       "name",
       R"({"name":"debugger-a","image":"busybox","targetContainerName":"app"})",
       R"({"name":"debugger-b","image":"busybox","stdin":true})",
       R"({"name":"debugger-b","tty":true})",
       R"({"name":"debugger-b","image":"busybox","stdin":true,"tty":true})",
       R"({"name":"debugger-c","image":"alpine"})"},
      // The key is the only field: re-sending an element changes nothing.
      {{Core("PodSpec")},
       "imagePullSecrets",
       "name",
       R"({"name":"registry-a"})",
       R"({"name":"registry-b"})",
       R"({"name":"registry-b"})",
       R"({"name":"registry-b"})",
       R"({"name":"registry-c"})"},
      // hostnames has no patch strategy: replaced inside the element.
      {{Core("PodSpec")},
       "hostAliases",
       "ip",
       R"({"ip":"10.0.0.1","hostnames":["db"]})",
       R"({"ip":"10.0.0.2","hostnames":["cache","redis"]})",
       R"({"ip":"10.0.0.2","hostnames":["memcached"]})",
       R"({"ip":"10.0.0.2","hostnames":["memcached"]})",
       R"({"ip":"10.0.0.3","hostnames":["queue"]})"},
      {{Core("PodSpec")},
       "topologySpreadConstraints",
       "topologyKey",
       R"({"topologyKey":"topology.kubernetes.io/zone","maxSkew":1,"whenUnsatisfiable":"DoNotSchedule"})",
       R"({"topologyKey":"kubernetes.io/hostname","maxSkew":1,"whenUnsatisfiable":"ScheduleAnyway"})",
       R"({"topologyKey":"kubernetes.io/hostname","maxSkew":2})",
       R"({"topologyKey":"kubernetes.io/hostname","maxSkew":2,"whenUnsatisfiable":"ScheduleAnyway"})",
       R"({"topologyKey":"topology.kubernetes.io/region","maxSkew":3,"whenUnsatisfiable":"DoNotSchedule"})"},
      {{Core("PodSpec")},
       "schedulingGates",
       "name",
       R"({"name":"example.com/quota"})",
       R"({"name":"example.com/approval"})",
       R"({"name":"example.com/approval"})",
       R"({"name":"example.com/approval"})",
       R"({"name":"example.com/capacity"})"},
      {{Core("PodSpec")},
       "resourceClaims",
       "name",
       R"({"name":"gpu","resourceClaimName":"gpu-claim"})",
       R"({"name":"fpga","resourceClaimTemplateName":"fpga-template"})",
       R"({"name":"fpga","resourceClaimTemplateName":"fpga-template-v2"})",
       R"({"name":"fpga","resourceClaimTemplateName":"fpga-template-v2"})",
       R"({"name":"nic","resourceClaimName":"nic-claim"})"},
      // Container and the two ephemeral container types share these.
      {kContainerTypes, "ports", "containerPort",
       R"({"containerPort":80,"name":"http","protocol":"TCP"})",
       R"({"containerPort":443,"protocol":"TCP"})",
       R"({"containerPort":443,"name":"https"})",
       R"({"containerPort":443,"name":"https","protocol":"TCP"})",
       R"({"containerPort":9090,"name":"metrics","protocol":"TCP"})"},
      // A null inside the element deletes that member.
      {kContainerTypes, "env", "name", R"({"name":"LOG_LEVEL","value":"info"})",
       R"({"name":"DB_HOST","value":"db-0"})",
       R"({"name":"DB_HOST","value":null,"valueFrom":{"configMapKeyRef":{"name":"db","key":"host"}}})",
       R"({"name":"DB_HOST","valueFrom":{"configMapKeyRef":{"name":"db","key":"host"}}})",
       R"({"name":"CACHE_TTL","value":"60"})"},
      {kContainerTypes, "volumeMounts", "mountPath",
       R"({"name":"data","mountPath":"/var/lib/data"})",
       R"({"name":"config","mountPath":"/etc/app"})",
       R"({"mountPath":"/etc/app","readOnly":true})",
       R"({"name":"config","mountPath":"/etc/app","readOnly":true})",
       R"({"name":"cache","mountPath":"/tmp/cache"})"},
      {kContainerTypes, "volumeDevices", "devicePath",
       R"({"name":"raw-a","devicePath":"/dev/xvda"})",
       R"({"name":"raw-b","devicePath":"/dev/xvdb"})",
       R"({"name":"raw-b2","devicePath":"/dev/xvdb"})",
       R"({"name":"raw-b2","devicePath":"/dev/xvdb"})",
       R"({"name":"raw-c","devicePath":"/dev/xvdc"})"},
      // PodStatus.
      {{Core("PodStatus")},
       "conditions",
       "type",
       R"({"type":"PodScheduled","status":"True"})",
       R"({"type":"Ready","status":"False","reason":"ContainersNotReady"})",
       R"({"type":"Ready","status":"True","reason":null})",
       R"({"type":"Ready","status":"True"})",
       R"({"type":"Initialized","status":"True"})"},
      {{Core("PodStatus")},
       "hostIPs",
       "ip",
       R"({"ip":"192.168.1.10"})",
       R"({"ip":"fd00::10"})",
       R"({"ip":"fd00::10"})",
       R"({"ip":"fd00::10"})",
       R"({"ip":"192.168.1.11"})"},
      {{Core("PodStatus")},
       "podIPs",
       "ip",
       R"({"ip":"10.244.0.5"})",
       R"({"ip":"fd00:10:244::5"})",
       R"({"ip":"fd00:10:244::5"})",
       R"({"ip":"fd00:10:244::5"})",
       R"({"ip":"10.244.0.6"})"},
      {{Core("PodStatus")},
       "resourceClaimStatuses",
       "name",
       R"({"name":"gpu","resourceClaimName":"pod-gpu-abc"})",
       R"({"name":"fpga","resourceClaimName":"pod-fpga-abc"})",
       R"({"name":"fpga","resourceClaimName":"pod-fpga-def"})",
       R"({"name":"fpga","resourceClaimName":"pod-fpga-def"})",
       R"({"name":"nic","resourceClaimName":"pod-nic-abc"})"},
      // NodeStatus.
      {{Core("NodeStatus")},
       "conditions",
       "type",
       R"({"type":"Ready","status":"True"})",
       R"({"type":"MemoryPressure","status":"False"})",
       R"({"type":"MemoryPressure","status":"True","reason":"KubeletHasInsufficientMemory"})",
       R"({"type":"MemoryPressure","status":"True","reason":"KubeletHasInsufficientMemory"})",
       R"({"type":"DiskPressure","status":"False"})"},
      {{Core("NodeStatus")},
       "addresses",
       "type",
       R"({"type":"InternalIP","address":"10.0.0.5"})",
       R"({"type":"Hostname","address":"node-1"})",
       R"({"type":"Hostname","address":"node-1.example"})",
       R"({"type":"Hostname","address":"node-1.example"})",
       R"({"type":"ExternalIP","address":"203.0.113.5"})"},
      // NamespaceStatus.
      {{Core("NamespaceStatus")},
       "conditions",
       "type",
       R"({"type":"NamespaceDeletionDiscoveryFailure","status":"False"})",
       R"({"type":"NamespaceContentRemaining","status":"True","message":"pods remain"})",
       R"({"type":"NamespaceContentRemaining","status":"False","message":null})",
       R"({"type":"NamespaceContentRemaining","status":"False"})",
       R"({"type":"NamespaceFinalizersRemaining","status":"False"})"},
      // ServiceSpec: an int-or-string targetPort changes type.
      {{Core("ServiceSpec")},
       "ports",
       "port",
       R"({"port":80,"targetPort":8080,"protocol":"TCP","name":"http"})",
       R"({"port":443,"targetPort":8443,"protocol":"TCP","name":"https"})",
       R"({"port":443,"targetPort":"https"})",
       R"({"port":443,"targetPort":"https","protocol":"TCP","name":"https"})",
       R"({"port":9090,"protocol":"TCP","name":"metrics"})"},
      // ObjectMeta.
      {{Meta("ObjectMeta")},
       "ownerReferences",
       "uid",
       R"({"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-1","uid":"uid-a","controller":true})",
       R"({"apiVersion":"v1","kind":"ConfigMap","name":"cfg","uid":"uid-b"})",
       R"({"uid":"uid-b","blockOwnerDeletion":true})",
       R"({"apiVersion":"v1","kind":"ConfigMap","name":"cfg","uid":"uid-b","blockOwnerDeletion":true})",
       R"({"apiVersion":"v1","kind":"Secret","name":"s","uid":"uid-c"})"},
      // apps/v1.
      {{Apps("DeploymentStatus")},
       "conditions",
       "type",
       R"({"type":"Available","status":"True"})",
       R"({"type":"Progressing","status":"True","reason":"ReplicaSetUpdated"})",
       R"({"type":"Progressing","reason":"NewReplicaSetAvailable"})",
       R"({"type":"Progressing","status":"True","reason":"NewReplicaSetAvailable"})",
       R"({"type":"ReplicaFailure","status":"True"})"},
      {{Apps("ReplicaSetStatus")},
       "conditions",
       "type",
       R"({"type":"ReplicaFailure","status":"True","reason":"FailedCreate"})",
       R"({"type":"example.com/Audited","status":"False"})",
       R"({"type":"example.com/Audited","status":"True"})",
       R"({"type":"example.com/Audited","status":"True"})",
       R"({"type":"example.com/Scanned","status":"True"})"},
      // Status conditions keyed by type, kind by kind.
      Conditions({Apps("DaemonSetStatus")}, "example.com/Rolled", "Paused",
                 "example.com/Audited"),
      Conditions({Apps("StatefulSetStatus")}, "example.com/Rolled",
                 "example.com/Synced", "example.com/Audited"),
      Conditions({Api("autoscaling.v2", "HorizontalPodAutoscalerStatus")},
                 "AbleToScale", "ScalingActive", "ScalingLimited"),
      Conditions({Api("batch.v1", "JobStatus")}, "Suspended", "FailureTarget",
                 "Complete"),
      Conditions({Core("ComponentStatus")}, "Healthy", "example.com/Probe",
                 "example.com/Ready"),
      Conditions({Core("PersistentVolumeClaimStatus")}, "Resizing",
                 "FileSystemResizePending", "ModifyingVolume"),
      Conditions({Core("ReplicationControllerStatus")}, "ReplicaFailure",
                 "example.com/Audited", "example.com/Scanned"),
      // v1beta3 and v1beta2 are copies of v1's types (api/types).
      Conditions({Api("flowcontrol.v1", "FlowSchemaStatus"),
                  Api("flowcontrol.v1beta3", "FlowSchemaStatus"),
                  Api("flowcontrol.v1beta2", "FlowSchemaStatus")},
                 "Dangling", "example.com/Synced", "example.com/Audited"),
      Conditions(
          {Api("flowcontrol.v1", "PriorityLevelConfigurationStatus"),
           Api("flowcontrol.v1beta3", "PriorityLevelConfigurationStatus"),
           Api("flowcontrol.v1beta2", "PriorityLevelConfigurationStatus")},
          "ConcurrencyShared", "example.com/Synced", "example.com/Audited"),
      Conditions({Api("networking.v1", "ServiceCIDRStatus")}, "Ready",
                 "example.com/Synced", "example.com/Audited"),
      Conditions({Api("policy.v1", "PodDisruptionBudgetStatus")},
                 "DisruptionAllowed", "example.com/Synced",
                 "example.com/Audited"),
      Conditions({"io.k8s.kube-aggregator.pkg.apis.apiregistration.v1."
                  "APIServiceStatus"},
                 "Available", "example.com/Synced", "example.com/Audited"),
      // Admission configuration.
      {{Api("admissionregistration.v1", "MutatingWebhook"),
        Api("admissionregistration.v1", "ValidatingWebhook"),
        Api("admissionregistration.v1", "ValidatingAdmissionPolicySpec")},
       "matchConditions",
       "name",
       R"j({"name":"not-system","expression":"!request.userInfo.username.startsWith('system:')"})j",
       R"j({"name":"has-label","expression":"has(object.metadata.labels)"})j",
       R"j({"name":"has-label","expression":"has(object.metadata.annotations)"})j",
       R"j({"name":"has-label","expression":"has(object.metadata.annotations)"})j",
       R"j({"name":"not-lease","expression":"request.resource.resource != 'leases'"})j"},
      {{Api("admissionregistration.v1", "ValidatingAdmissionPolicySpec")},
       "variables",
       "name",
       R"j({"name":"replicas","expression":"object.spec.replicas"})j",
       R"j({"name":"image","expression":"object.spec.template.spec.containers[0].image"})j",
       R"j({"name":"image","expression":"object.spec.template.spec.containers[1].image"})j",
       R"j({"name":"image","expression":"object.spec.template.spec.containers[1].image"})j",
       R"j({"name":"team","expression":"object.metadata.labels.team"})j"},
      {{Api("admissionregistration.v1", "MutatingWebhookConfiguration"),
        Api("admissionregistration.v1", "ValidatingWebhookConfiguration")},
       "webhooks",
       "name",
       R"({"name":"a.example.com","sideEffects":"None","admissionReviewVersions":["v1"]})",
       R"({"name":"b.example.com","sideEffects":"None","timeoutSeconds":5})",
       R"({"name":"b.example.com","timeoutSeconds":10})",
       R"({"name":"b.example.com","sideEffects":"None","timeoutSeconds":10})",
       R"({"name":"c.example.com","sideEffects":"NoneOnDryRun"})"},
      // Identity and storage.
      {{Core("ServiceAccount")},
       "secrets",
       "name",
       R"({"name":"build-token"})",
       R"({"name":"registry","namespace":"ci"})",
       R"({"name":"registry","namespace":"build"})",
       R"({"name":"registry","namespace":"build"})",
       R"({"name":"deploy-key"})"},
      {{Api("storage.v1", "CSINodeSpec")},
       "drivers",
       "name",
       R"({"name":"ebs.csi.aws.com","nodeID":"i-0a1"})",
       R"({"name":"efs.csi.aws.com","nodeID":"i-0a1","topologyKeys":["zone"]})",
       R"({"name":"efs.csi.aws.com","allocatable":{"count":8}})",
       R"({"name":"efs.csi.aws.com","nodeID":"i-0a1","topologyKeys":["zone"],"allocatable":{"count":8}})",
       R"({"name":"fsx.csi.aws.com","nodeID":"i-0a1"})"},
      {{"io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."
        "JSONSchemaProps"},
       "x-kubernetes-validations",
       "rule",
       R"j({"rule":"self.replicas >= 0","message":"replicas must not be negative"})j",
       R"j({"rule":"self.min <= self.max","message":"min above max"})j",
       R"j({"rule":"self.min <= self.max","reason":"FieldValueInvalid"})j",
       R"j({"rule":"self.min <= self.max","message":"min above max","reason":"FieldValueInvalid"})j",
       R"j({"rule":"size(self.name) < 64"})j"},
  };
  return *lists;
}

const std::vector<PrimitiveList>& PrimitiveLists() {
  static const auto* lists = new std::vector<PrimitiveList>{
      {{Meta("ObjectMeta")},
       "finalizers",
       R"("kubernetes.io/pv-protection")",
       R"("example.com/cleanup")",
       R"("foregroundDeletion")"},
      {{Core("NodeSpec")},
       "podCIDRs",
       R"("10.244.1.0/24")",
       R"("fd00:10:244:1::/64")",
       R"("10.245.1.0/24")"},
  };
  return *lists;
}

// "io.k8s.api.core.v1.EphemeralContainerCommon" -> "EphemeralContainerCommon".
// The type's own name, after its version where that is a pre-release one
// (a group's older versions repeat the names of its v1 types).
std::string ShortName(const std::string& type) {
  const size_t dot = type.rfind('.');
  const size_t before = type.rfind('.', dot - 1);
  const std::string version = type.substr(before + 1, dot - before - 1);
  const bool pre_release = version.find("beta") != std::string::npos ||
                           version.find("alpha") != std::string::npos;
  return (pre_release ? version + "_" : "") + type.substr(dot + 1);
}

std::string CaseName(const std::string& type, const std::string& field,
                     const char* what) {
  std::string name = ShortName(type) + "_" + field + "_" + what;
  for (char& ch : name) {
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

json List(std::initializer_list<json> items) {
  json list = json::array();
  for (const json& item : items) list.push_back(item);
  return list;
}

json With(const std::string& field, json value) {
  json object = json::object();
  object[field] = std::move(value);
  return object;
}

void AddKeyedListCases(const KeyedList& f, std::vector<Case>* cases) {
  const std::string field = f.field;
  const std::string key = f.merge_key;
  const std::string order = "$setElementOrder/" + field;
  const json a = json::parse(f.a), b = json::parse(f.b);
  const json b_patch = json::parse(f.b_patch);
  const json b_merged = json::parse(f.b_merged);
  const json c = json::parse(f.c);
  auto key_of = [&key](const json& element) {
    return json{{key, element.at(key)}};
  };
  json delete_b = key_of(b);
  delete_b["$patch"] = "delete";
  json keyless = b_patch;
  keyless.erase(key);

  for (const std::string& owner : f.owners) {
    auto add = [&](const char* what, json original, json patch, json expected,
                   const char* directive) {
      cases->push_back({CaseName(owner, field, what),
                        owner,
                        std::move(original),
                        std::move(patch),
                        std::move(expected),
                        StatusCode::kOk,
                        "",
                        {Tag(owner, field, directive)}});
    };
    // The matching element merges in place, the new one is appended, the
    // others keep their place.
    add("MergeByKeyUpdatesAndAppends", With(field, List({a, b})),
        With(field, List({b_patch, c})), With(field, List({a, b_merged, c})),
        kMergeByKey);
    add("PatchDeleteRemovesElement", With(field, List({a, b, c})),
        With(field, List({delete_b})), With(field, List({a, c})),
        kDeleteElement);
    add("PatchReplaceReplacesList", With(field, List({a, b})),
        With(field, List({c, {{"$patch", "replace"}}})), With(field, List({c})),
        kReplaceList);
    {
      json patch = With(field, List({c}));
      patch[order] = List({key_of(b), key_of(c), key_of(a)});
      add("SetElementOrderPlacesNewElement", With(field, List({a, b})),
          std::move(patch), With(field, List({b, c, a})), kSetOrder);
    }
    {
      json patch = With(field, List({delete_b}));
      patch[order] = List({key_of(c), key_of(a)});
      add("SetElementOrderWithDelete", With(field, List({a, b, c})),
          std::move(patch), With(field, List({c, a})), kSetOrderWithDelete);
    }
    cases->push_back({CaseName(owner, field, "ElementWithoutMergeKeyFails"),
                      owner,
                      With(field, List({a, b})),
                      With(field, List({keyless})),
                      json(),
                      StatusCode::kInternal,
                      " does not contain declared merge key: " + key,
                      {Tag(owner, field, kMissingKey)}});
  }
}

void AddPrimitiveListCases(const PrimitiveList& f, std::vector<Case>* cases) {
  const std::string field = f.field;
  const std::string order = "$setElementOrder/" + field;
  const std::string remove = "$deleteFromPrimitiveList/" + field;
  const json a = json::parse(f.a), b = json::parse(f.b), c = json::parse(f.c);
  for (const std::string& owner : f.owners) {
    auto add = [&](const char* what, json original, json patch, json expected,
                   const char* directive) {
      cases->push_back({CaseName(owner, field, what),
                        owner,
                        std::move(original),
                        std::move(patch),
                        std::move(expected),
                        StatusCode::kOk,
                        "",
                        {Tag(owner, field, directive)}});
    };
    // A value already present is not added twice.
    add("MergeAsSet", With(field, List({a, b})), With(field, List({b, c})),
        With(field, List({a, b, c})), kMergeAsSet);
    {
      json patch = json::object();
      patch[remove] = List({b});
      add("DeleteFromPrimitiveList", With(field, List({a, b, c})),
          std::move(patch), With(field, List({a, c})), kDeleteFromPrimitive);
    }
    {
      json patch = With(field, List({c}));
      patch[order] = List({b, c, a});
      add("SetElementOrderPlacesNewValue", With(field, List({a, b})),
          std::move(patch), With(field, List({b, c, a})), kSetOrder);
    }
    {
      json patch = json::object();
      patch[remove] = List({b});
      patch[order] = List({c, a});
      add("SetElementOrderWithDelete", With(field, List({a, b, c})),
          std::move(patch), With(field, List({c, a})), kSetOrderWithDelete);
    }
  }
}

// Cases written out in full: $retainKeys, map directives, edge cases.
std::vector<Case> HandWrittenCases() {
  const std::string pod = Core("Pod");
  const std::string pod_spec = Core("PodSpec");
  const std::string container = Core("Container");
  const std::string deployment = Apps("Deployment");
  const std::string deployment_spec = Apps("DeploymentSpec");
  const std::string pdb_spec = Api("policy.v1", "PodDisruptionBudgetSpec");
  auto ok = [](const char* name, const std::string& root, const char* original,
               const char* patch, const char* expected,
               std::vector<std::string> covers = {}) {
    return Case{name,
                root,
                json::parse(original),
                json::parse(patch),
                json::parse(expected),
                StatusCode::kOk,
                "",
                std::move(covers)};
  };
  auto fails = [](const char* name, const std::string& root,
                  const char* original, const char* patch, StatusCode code,
                  const char* error) {
    return Case{
        name,  root, json::parse(original), json::parse(patch), json(), code,
        error, {}};
  };
  return {
      // --- $retainKeys: keys of the live map not listed are cleared. ---
      // Switching a volume's source: the old source must go.
      ok("Volume_RetainKeysSwitchesSource", pod_spec,
         R"({"volumes":[{"name":"data","emptyDir":{}},
                        {"name":"config","configMap":{"name":"app-config"}}]})",
         R"({"$setElementOrder/volumes":[{"name":"data"},{"name":"config"}],
             "volumes":[{"name":"data","$retainKeys":["name","persistentVolumeClaim"],
                         "persistentVolumeClaim":{"claimName":"data-pvc"}}]})",
         R"({"volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"data-pvc"}},
                        {"name":"config","configMap":{"name":"app-config"}}]})",
         {Tag(pod_spec, "volumes", kRetainKeys)}),
      // Without the directive the old source stays (the reason it exists).
      ok("Volume_WithoutRetainKeysBothSourcesStay", pod_spec,
         R"({"volumes":[{"name":"data","emptyDir":{}}]})",
         R"({"volumes":[{"name":"data","hostPath":{"path":"/srv"}}]})",
         R"({"volumes":[{"name":"data","emptyDir":{},"hostPath":{"path":"/srv"}}]})"),
      ok("ResourceClaim_RetainKeysSwitchesSource", pod_spec,
         R"({"resourceClaims":[{"name":"gpu","resourceClaimName":"gpu-claim"}]})",
         R"({"resourceClaims":[{"name":"gpu","$retainKeys":["name","resourceClaimTemplateName"],
                                "resourceClaimTemplateName":"gpu-template"}]})",
         R"({"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"gpu-template"}]})",
         {Tag(pod_spec, "resourceClaims", kRetainKeys)}),
      ok("ResourceClaimStatus_RetainKeysClearsClaimName", Core("PodStatus"),
         R"({"resourceClaimStatuses":[{"name":"gpu","resourceClaimName":"pod-gpu"},
                                      {"name":"nic","resourceClaimName":"pod-nic"}]})",
         R"({"resourceClaimStatuses":[{"name":"gpu","$retainKeys":["name"]}]})",
         R"({"resourceClaimStatuses":[{"name":"gpu"},
                                      {"name":"nic","resourceClaimName":"pod-nic"}]})",
         {Tag(Core("PodStatus"), "resourceClaimStatuses", kRetainKeys)}),
      // --- patchStrategy replace on a map: the patch's map is the value. ---
      ok("PodDisruptionBudgetSelector_ReplaceDropsOldTerms", pdb_spec,
         R"({"minAvailable":2,"selector":{"matchLabels":{"app":"web","tier":"front"},
             "matchExpressions":[{"key":"track","operator":"In","values":["stable"]}]}})",
         R"({"selector":{"matchLabels":{"app":"api"}}})",
         R"({"minAvailable":2,"selector":{"matchLabels":{"app":"api"}}})",
         {Tag(pdb_spec, "selector", kReplaceMap)}),
      // The same patch on a Deployment's selector merges (no strategy).
      ok("DeploymentSelector_WithoutReplaceMerges", deployment_spec,
         R"({"selector":{"matchLabels":{"app":"web","tier":"front"}}})",
         R"({"selector":{"matchLabels":{"app":"api"}}})",
         R"({"selector":{"matchLabels":{"app":"api","tier":"front"}}})"),
      // Recreate must not keep rollingUpdate, or validation rejects it.
      ok("DeploymentStrategy_RetainKeysDropsRollingUpdate", deployment_spec,
         R"({"replicas":3,"strategy":{"type":"RollingUpdate",
             "rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}}})",
         R"({"strategy":{"$retainKeys":["type"],"type":"Recreate"}})",
         R"({"replicas":3,"strategy":{"type":"Recreate"}})",
         {Tag(deployment_spec, "strategy", kRetainKeys)}),
      ok("DeploymentStrategy_WithoutRetainKeysMerges", deployment_spec,
         R"({"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}})",
         R"({"strategy":{"type":"Recreate"}})",
         R"({"strategy":{"type":"Recreate","rollingUpdate":{"maxSurge":1}}})"),
      ok("DeploymentStrategy_RetainKeysKeepsListedAndMergesThem",
         deployment_spec,
         R"({"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}})",
         R"({"strategy":{"$retainKeys":["type","rollingUpdate"],"rollingUpdate":{"maxSurge":2}}})",
         R"({"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":2,"maxUnavailable":0}}})"),
      // A null for a key outside the list is allowed (it deletes anyway).
      ok("DeploymentStrategy_RetainKeysAllowsNullForUnlistedKey",
         deployment_spec,
         R"({"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}})",
         R"({"strategy":{"$retainKeys":["type"],"type":"Recreate","rollingUpdate":null}})",
         R"({"strategy":{"type":"Recreate"}})"),
      fails(
          "DeploymentStrategy_RetainKeysMustListPatchedKeys", deployment_spec,
          R"({"strategy":{"type":"RollingUpdate"}})",
          R"({"strategy":{"$retainKeys":["type"],"rollingUpdate":{"maxSurge":1}}})",
          StatusCode::kBadRequest, "invalid patch format of retainKeys"),
      fails("DeploymentStrategy_RetainKeysMustBeAList", deployment_spec,
            R"({"strategy":{"type":"RollingUpdate"}})",
            R"({"strategy":{"$retainKeys":"type"}})", StatusCode::kBadRequest,
            "invalid patch format of retainKeys"),

      // --- $patch on maps. ---
      ok("Labels_PatchReplaceReplacesMap", pod,
         R"({"metadata":{"name":"web","labels":{"app":"web","tier":"frontend"}}})",
         R"({"metadata":{"labels":{"$patch":"replace","app":"api"}}})",
         R"({"metadata":{"name":"web","labels":{"app":"api"}}})"),
      ok("NodeSelector_PatchDeleteEmptiesMap", pod,
         R"({"spec":{"nodeSelector":{"disktype":"ssd","zone":"a"}}})",
         R"({"spec":{"nodeSelector":{"$patch":"delete"}}})",
         R"({"spec":{"nodeSelector":{}}})"),
      ok("Strategy_PatchReplaceReplacesStruct", deployment,
         R"({"spec":{"replicas":2,"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}})",
         R"({"spec":{"strategy":{"$patch":"replace","type":"Recreate"}}})",
         R"({"spec":{"replicas":2,"strategy":{"type":"Recreate"}}})"),
      ok("Root_PatchReplaceKeepsOnlyPatch", pod,
         R"({"metadata":{"name":"web"},"spec":{"nodeName":"n1"}})",
         R"({"$patch":"replace","metadata":{"name":"other"}})",
         R"({"metadata":{"name":"other"}})"),
      ok("Root_PatchDeleteEmptiesObject", pod,
         R"({"metadata":{"name":"web"},"spec":{"nodeName":"n1"}})",
         R"({"$patch":"delete"})", R"({})"),
      // A map carrying $patch for a key the live object lacks is dropped.
      ok("Annotations_DirectiveMapForAbsentKeyIsDropped", pod,
         R"({"metadata":{"name":"web"}})",
         R"({"metadata":{"annotations":{"$patch":"replace","a":"1"},"labels":{"b":"2"}}})",
         R"({"metadata":{"name":"web","labels":{"b":"2"}}})"),
      fails("Labels_UnknownPatchDirectiveFails", pod,
            R"({"metadata":{"labels":{"app":"web"}}})",
            R"({"metadata":{"labels":{"$patch":"merge"}}})",
            StatusCode::kInternal, "unknown patch type: merge in map: "),

      // --- Nulls. ---
      ok("Labels_NullDeletesKey", pod,
         R"({"metadata":{"labels":{"app":"web","tier":"frontend"}}})",
         R"({"metadata":{"labels":{"tier":null,"track":"stable"}}})",
         R"({"metadata":{"labels":{"app":"web","track":"stable"}}})"),
      ok("Labels_NullForAbsentKeyIsIgnored", pod,
         R"({"metadata":{"labels":{"app":"web"}}})",
         R"({"metadata":{"labels":{"gone":null}}})",
         R"({"metadata":{"labels":{"app":"web"}}})"),
      // A value copied in whole loses its nulls.
      ok("Labels_NewMapDropsNulls", pod, R"({"metadata":{"name":"web"}})",
         R"({"metadata":{"labels":{"app":"web","gone":null}}})",
         R"({"metadata":{"name":"web","labels":{"app":"web"}}})"),
      ok("NodeSelector_NullDeletesWholeMap", pod,
         R"({"spec":{"nodeSelector":{"zone":"a"},"nodeName":"n1"}})",
         R"({"spec":{"nodeSelector":null}})", R"({"spec":{"nodeName":"n1"}})"),
      ok("Containers_NullDeletesWholeList", pod_spec,
         R"({"containers":[{"name":"app"}],"nodeName":"n1"})",
         R"({"containers":null})", R"({"nodeName":"n1"})"),

      // --- Merge keys. ---
      // A patch element without the merge key fails, even a $patch: delete.
      fails("Containers_DeleteWithoutMergeKeyFails", pod_spec,
            R"({"containers":[{"name":"app","image":"nginx"}]})",
            R"({"containers":[{"$patch":"delete","image":"nginx"}]})",
            StatusCode::kInternal,
            "map: map[$patch:delete image:nginx] does not contain declared "
            "merge key: name"),
      fails("Containers_ElementWithoutNameFailsWithGoMessage", pod_spec,
            R"({"containers":[{"name":"app","image":"nginx"}]})",
            R"({"containers":[{"image":"nginx:1.26"}]})", StatusCode::kInternal,
            "map: map[image:nginx:1.26] does not contain declared merge key: "
            "name"),
      // Keys compare as Go values: the integer 80 is not the float 80.0, so
      // the element counts as new (and new elements go first).
      ok("Ports_IntegerKeyDoesNotMatchFloat", container,
         R"({"ports":[{"containerPort":80,"protocol":"TCP"}]})",
         R"({"ports":[{"containerPort":80.0,"name":"http"}]})",
         R"({"ports":[{"containerPort":80,"name":"http"},
                      {"containerPort":80,"protocol":"TCP"}]})"),
      // ports merge on containerPort alone: a UDP port with the same number
      // lands on the TCP entry (a known upstream limitation).
      ok("Ports_SameNumberOtherProtocolMergesIntoFirst", container,
         R"({"ports":[{"containerPort":53,"protocol":"TCP"}]})",
         R"({"ports":[{"containerPort":53,"protocol":"UDP"}]})",
         R"({"ports":[{"containerPort":53,"protocol":"UDP"}]})"),

      // --- Duplicate keys in the live list. ---
      // Only the first element with the key receives the patch...
      ok("Addresses_DuplicateKeyMergesIntoFirst", Core("NodeStatus"),
         R"({"addresses":[{"type":"InternalIP","address":"10.0.0.5"},
                          {"type":"InternalIP","address":"fd00::5"},
                          {"type":"Hostname","address":"node-1"}]})",
         R"({"addresses":[{"type":"InternalIP","address":"10.0.0.9"}]})",
         R"({"addresses":[{"type":"InternalIP","address":"10.0.0.9"},
                          {"type":"InternalIP","address":"fd00::5"},
                          {"type":"Hostname","address":"node-1"}]})"),
      // ...and $patch: delete removes every element with the key.
      ok("Env_DeleteRemovesAllDuplicates", container,
         R"({"env":[{"name":"A","value":"1"},{"name":"B","value":"2"},
                    {"name":"A","value":"3"},{"name":"C","value":"4"}]})",
         R"({"env":[{"name":"A","$patch":"delete"}]})",
         R"({"env":[{"name":"B","value":"2"},{"name":"C","value":"4"}]})"),
      ok("ServicePorts_DeleteRemovesBothProtocols", Core("ServiceSpec"),
         R"({"ports":[{"port":53,"protocol":"TCP","name":"dns-tcp"},
                      {"port":53,"protocol":"UDP","name":"dns"},
                      {"port":9153,"protocol":"TCP","name":"metrics"}]})",
         R"({"ports":[{"port":53,"$patch":"delete"}]})",
         R"({"ports":[{"port":9153,"protocol":"TCP","name":"metrics"}]})"),
      // Duplicates a primitive merge produces are removed.
      ok("Finalizers_MergeDeduplicates", Meta("ObjectMeta"),
         R"({"finalizers":["a","b"]})", R"({"finalizers":["b","c","c"]})",
         R"({"finalizers":["a","b","c"]})"),
      ok("Finalizers_DeleteRemovesAllDuplicates", Meta("ObjectMeta"),
         R"({"finalizers":["a","b","b","c"]})",
         R"({"$deleteFromPrimitiveList/finalizers":["b"]})",
         R"({"finalizers":["a","c"]})"),

      // --- Order of elements. ---
      // Without $setElementOrder, elements only in the patch go first.
      ok("Containers_NewElementWithoutOrderGoesFirst", pod_spec,
         R"({"containers":[{"name":"a"},{"name":"b"}]})",
         R"({"containers":[{"name":"c"}]})",
         R"({"containers":[{"name":"c"},{"name":"a"},{"name":"b"}]})"),
      // Patched elements take the patch's order; a live-only element keeps
      // its place ahead of the later ones.
      ok("Env_PatchOrderWinsForPatchedElements", container,
         R"({"env":[{"name":"A"},{"name":"B","value":"b"},{"name":"C"}]})",
         R"({"env":[{"name":"C","value":"c"},{"name":"A","value":"a"}]})",
         R"({"env":[{"name":"B","value":"b"},{"name":"C","value":"c"},{"name":"A","value":"a"}]})"),
      ok("Finalizers_PatchOrderWinsForPatchedValues", Meta("ObjectMeta"),
         R"({"finalizers":["a","b","c"]})", R"({"finalizers":["c","a"]})",
         R"({"finalizers":["b","c","a"]})"),
      // $setElementOrder: a live element it does not name comes after the
      // named ones that precede it in the live list.
      ok("Env_SetElementOrderLiveOnlyElementAfterNew", container,
         R"({"env":[{"name":"A"},{"name":"B"},{"name":"X"}]})",
         R"({"$setElementOrder/env":[{"name":"A"},{"name":"B"},{"name":"C"}],
             "env":[{"name":"C"}]})",
         R"({"env":[{"name":"A"},{"name":"B"},{"name":"C"},{"name":"X"}]})"),
      ok("Finalizers_SetElementOrderLiveOnlyValueAfterNew", Meta("ObjectMeta"),
         R"({"finalizers":["a","b","x"]})",
         R"({"$setElementOrder/finalizers":["a","b","d"],"finalizers":["d"]})",
         R"({"finalizers":["a","b","d","x"]})"),
      // Reordering alone, without a patch list.
      ok("Containers_SetElementOrderAloneReorders", pod_spec,
         R"({"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]})",
         R"({"$setElementOrder/containers":[{"name":"b"},{"name":"a"}]})",
         R"({"containers":[{"name":"b","image":"y"},{"name":"a","image":"x"}]})"),
      ok("Finalizers_SetElementOrderAloneReorders", Meta("ObjectMeta"),
         R"({"finalizers":["a","c"]})",
         R"({"$setElementOrder/finalizers":["c","b","a"]})",
         R"({"finalizers":["c","a"]})"),
      // Names in $setElementOrder that exist nowhere are ignored.
      ok("Env_SetElementOrderIgnoresUnknownNames", container,
         R"({"env":[{"name":"A"},{"name":"C"}]})",
         R"({"$setElementOrder/env":[{"name":"C"},{"name":"B"},{"name":"A"}],
             "env":[{"name":"C","value":"3"},{"name":"A","value":"1"}]})",
         R"({"env":[{"name":"C","value":"3"},{"name":"A","value":"1"}]})"),
      // A list the live object lacks is created from the patch, without its
      // directive elements.
      ok("Env_SetElementOrderCreatesListWithoutDirectives", container,
         R"({"name":"app"})",
         R"({"$setElementOrder/env":[{"name":"B"},{"name":"A"}],
             "env":[{"name":"B","value":"2"},{"name":"Z","$patch":"delete"},
                    {"name":"A","value":"1"}]})",
         R"({"name":"app","env":[{"name":"B","value":"2"},{"name":"A","value":"1"}]})"),
      fails("Env_SetElementOrderMustAgreeWithPatchOrder", container,
            R"({"env":[{"name":"A"},{"name":"B"}]})",
            R"({"$setElementOrder/env":[{"name":"A"},{"name":"B"}],
                "env":[{"name":"B","value":"2"},{"name":"A","value":"1"}]})",
            StatusCode::kInternal, "doesn't match $setElementOrder list"),
      fails("Env_SetElementOrderMustNameEveryPatchedElement", container,
            R"({"env":[{"name":"A"}]})",
            R"({"$setElementOrder/env":[{"name":"A"}],
                "env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]})",
            StatusCode::kInternal, "doesn't match $setElementOrder list"),
      // Mixing $setElementOrder with deletes (kubectl apply after renaming
      // an element while the live list holds one apply does not manage).
      ok("Env_SetElementOrderAddDeleteWithLiveOnlyElement", container,
         R"({"env":[{"name":"1"},{"name":"2","other":"b"},{"name":"4","other":"c"}]})",
         R"({"$setElementOrder/env":[{"name":"2"},{"name":"3"}],
             "env":[{"name":"3"},{"name":"1","$patch":"delete"}]})",
         R"({"env":[{"name":"2","other":"b"},{"name":"4","other":"c"},{"name":"3"}]})"),
      ok("Env_SetElementOrderDeleteAndReAddLiveOnlyFirst", container,
         R"({"env":[{"name":"1","other":"a"},{"name":"4","other":"c"}]})",
         R"({"$setElementOrder/env":[{"name":"2"},{"name":"3"}],
             "env":[{"name":"2"},{"name":"3"},{"name":"1","$patch":"delete"}]})",
         R"({"env":[{"name":"4","other":"c"},{"name":"2"},{"name":"3"}]})"),
      ok("Env_SetElementOrderDeleteOfAbsentElement", container,
         R"({"env":[{"name":"3","other":"a"}]})",
         R"({"$setElementOrder/env":[{"name":"2"}],
             "env":[{"name":"2"},{"name":"1","$patch":"delete"}]})",
         R"({"env":[{"name":"2"},{"name":"3","other":"a"}]})"),
      // Delete in one list and reorder another in the same patch.
      ok("PodSpec_DeleteInOneListReorderAnother", pod_spec,
         R"({"containers":[{"name":"a"},{"name":"b"}],
             "volumes":[{"name":"c","emptyDir":{}},{"name":"d","emptyDir":{}}]})",
         R"({"$setElementOrder/containers":[{"name":"b"}],
             "$setElementOrder/volumes":[{"name":"d"},{"name":"c"}],
             "containers":[{"$patch":"delete","name":"a"}]})",
         R"({"containers":[{"name":"b"}],
             "volumes":[{"name":"d","emptyDir":{}},{"name":"c","emptyDir":{}}]})"),
      ok("Finalizers_SetElementOrderAddAndDelete", Meta("ObjectMeta"),
         R"({"finalizers":["a","b","c","d"]})",
         R"({"$setElementOrder/finalizers":["a","b","e"],
             "$deleteFromPrimitiveList/finalizers":["c"],"finalizers":["e"]})",
         R"({"finalizers":["a","b","e","d"]})"),

      // --- $deleteFromPrimitiveList details. ---
      ok("Finalizers_DeleteOfAbsentValueChangesNothing", Meta("ObjectMeta"),
         R"({"finalizers":["a","b"]})",
         R"({"$deleteFromPrimitiveList/finalizers":["z"]})",
         R"({"finalizers":["a","b"]})"),
      ok("Finalizers_DeleteOnAbsentListAddsNothing", Meta("ObjectMeta"),
         R"({"name":"x"})", R"({"$deleteFromPrimitiveList/finalizers":["a"]})",
         R"({"name":"x"})"),
      // It also works on a list whose strategy is replace.
      ok("Args_DeleteFromListWithoutMergeStrategy", container,
         R"({"args":["--a","--b","--c"]})",
         R"({"$deleteFromPrimitiveList/args":["--b"]})",
         R"({"args":["--a","--c"]})"),
      fails("Finalizers_BadDeletePrefixFails", Meta("ObjectMeta"),
            R"({"finalizers":["a"]})",
            R"({"$deleteFromPrimitiveListfinalizers":["a"]})",
            StatusCode::kBadRequest, "invalid patch format of primitive list"),

      // --- List directives. ---
      ok("Containers_PatchReplaceWithoutElementsEmptiesList", pod_spec,
         R"({"containers":[{"name":"a"},{"name":"b"}]})",
         R"({"containers":[{"$patch":"replace"}]})", R"({"containers":[]})"),
      // An element carrying $patch: replace is itself dropped.
      ok("Containers_ReplaceMarkerElementIsNotKept", pod_spec,
         R"({"containers":[{"name":"a"}]})",
         R"({"containers":[{"name":"b"},{"name":"c","$patch":"replace"}]})",
         R"({"containers":[{"name":"b"}]})"),
      ok("Containers_DeleteOfAbsentElementChangesNothing", pod_spec,
         R"({"containers":[{"name":"a"}]})",
         R"({"containers":[{"name":"zz","$patch":"delete"}]})",
         R"({"containers":[{"name":"a"}]})"),
      fails("Containers_PatchMergeInListFails", pod_spec,
            R"({"containers":[{"name":"a"}]})",
            R"({"containers":[{"name":"a","$patch":"merge"}]})",
            StatusCode::kInternal,
            "merging lists cannot yet be specified in the patch"),
      // Tolerations have no strategy: the list is replaced whole.
      ok("Tolerations_ListWithoutStrategyIsReplaced", pod_spec,
         R"({"tolerations":[{"key":"a","operator":"Exists"},{"key":"b","operator":"Exists"}]})",
         R"({"tolerations":[{"key":"c","operator":"Exists"}]})",
         R"({"tolerations":[{"key":"c","operator":"Exists"}]})"),

      // --- Whole objects: the merge recurses through keyed lists. ---
      ok("Deployment_EnvOfOneContainerMerges", deployment,
         R"({"spec":{"template":{"spec":{"containers":[
               {"name":"app","image":"web:1","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},
               {"name":"sidecar","image":"proxy:1"}]}}}})",
         R"({"spec":{"template":{"spec":{"containers":[
               {"name":"app","env":[{"name":"B","value":"3"}]}]}}}})",
         R"({"spec":{"template":{"spec":{"containers":[
               {"name":"app","image":"web:1","env":[{"name":"A","value":"1"},{"name":"B","value":"3"}]},
               {"name":"sidecar","image":"proxy:1"}]}}}})"),
      ok("Pod_KubectlApplyStylePatch", pod,
         R"({"metadata":{"name":"web","labels":{"app":"web"},"finalizers":["x"]},
             "spec":{"containers":[{"name":"app","image":"web:1","ports":[{"containerPort":80}]},
                                   {"name":"log","image":"fluent:1"}]}})",
         R"({"metadata":{"labels":{"version":"2"}},
             "spec":{"$setElementOrder/containers":[{"name":"app"},{"name":"metrics"}],
                     "containers":[{"name":"app","image":"web:2",
                                    "$setElementOrder/ports":[{"containerPort":80},{"containerPort":9090}],
                                    "ports":[{"containerPort":9090}]},
                                   {"name":"metrics","image":"exporter:1"},
                                   {"name":"log","$patch":"delete"}]}})",
         R"({"metadata":{"name":"web","labels":{"app":"web","version":"2"},"finalizers":["x"]},
             "spec":{"containers":[{"name":"app","image":"web:2",
                                    "ports":[{"containerPort":80},{"containerPort":9090}]},
                                   {"name":"metrics","image":"exporter:1"}]}})"),
  };
}

const std::vector<Case>& AllCases() {
  static const auto* cases = [] {
    auto* all = new std::vector<Case>;
    for (const KeyedList& f : KeyedLists()) AddKeyedListCases(f, all);
    for (const PrimitiveList& f : PrimitiveLists()) {
      AddPrimitiveListCases(f, all);
    }
    for (Case& c : HandWrittenCases()) all->push_back(std::move(c));
    return all;
  }();
  return *cases;
}

// gtest prints parameters in failure messages; the name says it all.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class StrategicMergeConformanceTest : public ::testing::TestWithParam<Case> {};

TEST_P(StrategicMergeConformanceTest, Applies) {
  const Case& c = GetParam();
  const api::Schema& schema = api::Schema::Builtin();
  const api::Type* root = schema.Find(c.root);
  ASSERT_NE(root, nullptr) << "no type " << c.root;
  Result<json> result =
      ApplyStrategicMergePatch(c.original, c.patch, schema, root);
  if (c.error.empty()) {
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_EQ(result.value(), c.expected)
        << "original: " << c.original.dump() << "\npatch:    " << c.patch.dump()
        << "\nexpected: " << c.expected.dump()
        << "\nactual:   " << result.value().dump();
  } else {
    ASSERT_FALSE(result.ok())
        << "unexpected success: " << result.value().dump();
    EXPECT_EQ(result.status().code(), c.error_code)
        << result.status().ToString();
    EXPECT_NE(result.status().message().find(c.error), std::string::npos)
        << "message: " << result.status().message() << "\nwanted: " << c.error;
    if (c.error_code == StatusCode::kInternal) {
      EXPECT_EQ(result.status().reason(), kReasonUnknown);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Table, StrategicMergeConformanceTest,
                         ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

bool Has(const std::string& strategies, const char* strategy) {
  size_t start = 0;
  while (start <= strategies.size()) {
    size_t comma = strategies.find(',', start);
    if (comma == std::string::npos) comma = strategies.size();
    if (strategies.compare(start, comma - start, strategy) == 0) return true;
    start = comma + 1;
  }
  return false;
}

// Every (type, field) with patch metadata in the schema needs its cases.
TEST(StrategicMergeConformanceCoverage, EverySchemaPatchStrategyHasCases) {
  std::set<std::string> covered;
  for (const Case& c : AllCases())
    covered.insert(c.covers.begin(), c.covers.end());

  std::vector<std::string> missing;
  int fields = 0;
  for (const auto& [type_name, type] : api::Schema::Builtin().types()) {
    for (const api::Field& field : type.fields) {
      if (field.patch_strategy.empty() && field.patch_merge_key.empty()) {
        continue;
      }
      ++fields;
      std::vector<const char*> wanted;
      if (Has(field.patch_strategy, "merge")) {
        if (!field.patch_merge_key.empty()) {
          wanted = {kMergeByKey, kDeleteElement,      kReplaceList,
                    kSetOrder,   kSetOrderWithDelete, kMissingKey};
        } else {
          wanted = {kMergeAsSet, kDeleteFromPrimitive, kSetOrder,
                    kSetOrderWithDelete};
        }
      }
      if (Has(field.patch_strategy, "retainKeys"))
        wanted.push_back(kRetainKeys);
      if (Has(field.patch_strategy, "replace")) wanted.push_back(kReplaceMap);
      if (wanted.empty()) {
        missing.push_back(type_name + "." + field.name + " (strategy '" +
                          field.patch_strategy + "' has no cases defined)");
      }
      for (const char* directive : wanted) {
        std::string tag = Tag(type_name, field.name, directive);
        if (covered.count(tag) == 0) missing.push_back(tag);
      }
    }
  }
  EXPECT_GT(fields, 20);  // the schema really was walked
  std::string list;
  for (const std::string& m : missing) list += "\n  " + m;
  EXPECT_TRUE(missing.empty())
      << "schema patch metadata without a case:" << list;
}

// The samples agree with the schema: the field exists with the merge key
// upstream declares, so a wrong key in api/types/*.yaml fails here.
TEST(StrategicMergeConformanceCoverage, SamplesMatchSchemaMetadata) {
  const api::Schema& schema = api::Schema::Builtin();
  for (const KeyedList& f : KeyedLists()) {
    for (const std::string& owner : f.owners) {
      const api::Type* type = schema.Find(owner);
      ASSERT_NE(type, nullptr) << owner;
      const api::Field* field = type->FindField(f.field);
      ASSERT_NE(field, nullptr) << owner << "." << f.field;
      EXPECT_TRUE(Has(field->patch_strategy, "merge"))
          << owner << "." << f.field << ": " << field->patch_strategy;
      EXPECT_EQ(field->patch_merge_key, f.merge_key) << owner << "." << f.field;
    }
  }
  for (const PrimitiveList& f : PrimitiveLists()) {
    for (const std::string& owner : f.owners) {
      const api::Type* type = schema.Find(owner);
      ASSERT_NE(type, nullptr) << owner;
      const api::Field* field = type->FindField(f.field);
      ASSERT_NE(field, nullptr) << owner << "." << f.field;
      EXPECT_EQ(field->patch_strategy, "merge") << owner << "." << f.field;
      EXPECT_TRUE(field->patch_merge_key.empty()) << owner << "." << f.field;
    }
  }
}

TEST(StrategicMergeConformanceCoverage, CaseNamesAreUnique) {
  std::set<std::string> names;
  for (const Case& c : AllCases()) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case " << c.name;
  }
}

}  // namespace
}  // namespace kmock::patch
