#include "patch/strategic_merge_patch.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

#include "patch/patch_status.h"
#include "patch/smp_lists.h"

namespace kmock::patch {
namespace {

using api::ValueKind;
using json = nlohmann::json;

json J(const char* text) { return json::parse(text); }

api::Field Scalar(const char* name, ValueKind kind = ValueKind::kString) {
  api::Field f;
  f.name = name;
  f.kind = kind;
  return f;
}

api::Field Object(const char* name, const char* ref) {
  api::Field f = Scalar(name, ValueKind::kObject);
  f.ref = ref;
  return f;
}

api::Field Map(const char* name, const char* value_ref = "") {
  api::Field f = Scalar(name, ValueKind::kMap);
  if (*value_ref != '\0') {
    f.items.kind = ValueKind::kObject;
    f.items.ref = value_ref;
  }
  return f;
}

api::Field List(const char* name, const char* element_ref,
                const char* strategy = "", const char* merge_key = "") {
  api::Field f = Scalar(name, ValueKind::kArray);
  if (*element_ref != '\0') {
    f.items.kind = ValueKind::kObject;
    f.items.ref = element_ref;
  }
  f.patch_strategy = strategy;
  f.patch_merge_key = merge_key;
  return f;
}

// A small Pod schema carrying the patch metadata of the real one.
class StrategicMergePatchTest : public ::testing::Test {
 protected:
  StrategicMergePatchTest() {
    Add("Pod",
        {Object("metadata", "ObjectMeta"), Object("spec", "PodSpec"),
         Object("status", "PodStatus"), Scalar("payload", ValueKind::kAny)});
    Add("ObjectMeta",
        {Scalar("name"), Map("labels"), Map("annotations"),
         List("finalizers", "", "merge"),
         List("ownerReferences", "OwnerReference", "merge", "uid")});
    Add("OwnerReference", {Scalar("uid"), Scalar("name")});
    Add("PodSpec",
        {List("containers", "Container", "merge", "name"),
         List("initContainers", "Container", "merge", "name"),
         List("volumes", "Volume", "merge,retainKeys", "name"),
         List("tolerations", "Toleration"), Map("nodeSelector"),
         Object("securityContext", "PodSecurityContext"),
         Object("affinity", "Affinity"), List("matrix", "", "merge")});
    Add("Container", {Scalar("name"), Scalar("image"),
                      List("ports", "ContainerPort", "merge", "containerPort"),
                      List("env", "EnvVar", "merge", "name"), List("args", ""),
                      Object("resources", "ResourceRequirements")});
    Add("ContainerPort", {Scalar("containerPort", ValueKind::kInteger),
                          Scalar("protocol"), Scalar("name")});
    Add("EnvVar", {Scalar("name"), Scalar("value")});
    Add("ResourceRequirements", {Map("limits"), Map("requests")});
    Add("Volume", {Scalar("name"), Object("hostPath", "HostPath"),
                   Object("emptyDir", "EmptyDir")});
    Add("HostPath", {Scalar("path")});
    Add("EmptyDir", {Scalar("medium")});
    Add("Toleration", {Scalar("key"), Scalar("operator"), Scalar("effect")});
    Add("PodSecurityContext", {Scalar("runAsUser", ValueKind::kInteger),
                               Scalar("runAsGroup", ValueKind::kInteger),
                               Scalar("fsGroup", ValueKind::kInteger)});
    api::Field replaced = Object("nodeAffinity", "NodeAffinity");
    replaced.patch_strategy = "replace";
    Add("Affinity", {replaced});
    Add("NodeAffinity", {Scalar("a"), Scalar("b")});
    Add("PodStatus", {List("conditions", "PodCondition", "merge", "type")});
    Add("PodCondition", {Scalar("type"), Scalar("status")});
    resolver_ = [this](std::string_view name) -> const api::Type* {
      auto it = types_.find(std::string(name));
      return it == types_.end() ? nullptr : &it->second;
    };
  }

  void Add(const char* name, std::vector<api::Field> fields) {
    api::Type t;
    t.name = name;
    t.fields = std::move(fields);
    types_[name] = std::move(t);
  }

  Result<json> Patch(const char* original, const char* patch) {
    return ApplyStrategicMergePatch(J(original), J(patch), resolver_,
                                    &types_.at("Pod"));
  }

  json MustPatch(const char* original, const char* patch) {
    Result<json> r = Patch(original, patch);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r.value() : json();
  }

  // Expects the reason-less 500 that kube-apiserver passes Go errors as.
  void ExpectUnconverted(const char* original, const char* patch,
                         const std::string& message) {
    Result<json> r = Patch(original, patch);
    ASSERT_FALSE(r.ok()) << patch;
    EXPECT_EQ(r.status().code(), StatusCode::kInternal);
    EXPECT_EQ(r.status().reason(), kReasonUnknown);
    EXPECT_EQ(r.status().message(), message);
  }

  void ExpectBadRequest(const char* original, const char* patch,
                        const std::string& message) {
    Result<json> r = Patch(original, patch);
    ASSERT_FALSE(r.ok()) << patch;
    EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
    EXPECT_EQ(r.status().message(), message);
  }

  std::map<std::string, api::Type> types_;
  TypeResolver resolver_;
};

constexpr char kTwoContainers[] =
    R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}})";

// Keyed lists: containers by name.
TEST_F(StrategicMergePatchTest, ContainersMergeByName) {
  EXPECT_EQ(
      MustPatch(kTwoContainers,
                R"({"spec":{"containers":[{"name":"b","image":"z"}]}})"),
      J(R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"z"}]}})"));
}

TEST_F(StrategicMergePatchTest, NewElementWithoutOrderGoesFirst) {
  // Upstream places patch items with no live position before live ones.
  EXPECT_EQ(
      MustPatch(kTwoContainers,
                R"({"spec":{"containers":[{"name":"c","image":"w"}]}})"),
      J(R"({"spec":{"containers":[{"name":"c","image":"w"},{"name":"a","image":"x"},{"name":"b","image":"y"}]}})"));
}

TEST_F(StrategicMergePatchTest, KubectlClientSideApplyPatch) {
  EXPECT_EQ(
      MustPatch(
          R"({"metadata":{"name":"applypod","annotations":{"old":"1"}},
              "spec":{"containers":[{"name":"c1","image":"nginx:1.25"}]}})",
          R"({"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}\n"}},
              "spec":{"$setElementOrder/containers":[{"name":"c1"}],
                      "containers":[{"image":"nginx:1.26","name":"c1"}]}})"),
      J(R"({"metadata":{"name":"applypod","annotations":{"old":"1",
              "kubectl.kubernetes.io/last-applied-configuration":"{}\n"}},
            "spec":{"containers":[{"name":"c1","image":"nginx:1.26"}]}})"));
}

TEST_F(StrategicMergePatchTest, SetElementOrderReordersLiveList) {
  EXPECT_EQ(
      MustPatch(
          R"({"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}})",
          R"({"spec":{"$setElementOrder/containers":[{"name":"c"},{"name":"a"},{"name":"b"}]}})"),
      J(R"({"spec":{"containers":[{"name":"c"},{"name":"a"},{"name":"b"}]}})"));
}

TEST_F(StrategicMergePatchTest, SetElementOrderWithServerOnlyElement) {
  // b exists only on the server; c and a follow the directive's order.
  EXPECT_EQ(
      MustPatch(
          R"({"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}})",
          R"({"spec":{"$setElementOrder/containers":[{"name":"c"},{"name":"a"}],
                      "containers":[{"name":"c","image":"new"}]}})"),
      J(R"({"spec":{"containers":[{"name":"b"},{"name":"c","image":"new"},{"name":"a"}]}})"));
}

TEST_F(StrategicMergePatchTest, SetElementOrderForNewList) {
  // The patch list must follow the directive's order; deletions are dropped.
  EXPECT_EQ(
      MustPatch(
          R"({"spec":{}})",
          R"({"spec":{"$setElementOrder/initContainers":[{"name":"y"},{"name":"x"}],
                      "initContainers":[{"name":"y"},{"name":"x"},{"name":"z","$patch":"delete"}]}})"),
      J(R"({"spec":{"initContainers":[{"name":"y"},{"name":"x"}]}})"));
}

TEST_F(StrategicMergePatchTest, SetElementOrderMismatchFails) {
  ExpectUnconverted(
      kTwoContainers,
      R"({"spec":{"$setElementOrder/containers":[{"name":"a"}],"containers":[{"name":"b"}]}})",
      "the order in patch list:\n[map[name:b]]\n doesn't match "
      "$setElementOrder list:\n[map[name:a]]");
}

TEST_F(StrategicMergePatchTest, DeleteDirectiveInKeyedList) {
  EXPECT_EQ(
      MustPatch(kTwoContainers,
                R"({"spec":{"containers":[{"name":"a","$patch":"delete"}]}})"),
      J(R"({"spec":{"containers":[{"name":"b","image":"y"}]}})"));
}

TEST_F(StrategicMergePatchTest, DeleteDirectiveNeedsMergeKey) {
  ExpectUnconverted(kTwoContainers,
                    R"({"spec":{"containers":[{"$patch":"delete"}]}})",
                    "map: map[$patch:delete] does not contain declared merge "
                    "key: name");
}

TEST_F(StrategicMergePatchTest, ReplaceDirectiveInList) {
  EXPECT_EQ(
      MustPatch(
          kTwoContainers,
          R"({"spec":{"containers":[{"name":"x","image":"i"},{"$patch":"replace"}]}})"),
      J(R"({"spec":{"containers":[{"name":"x","image":"i"}]}})"));
}

TEST_F(StrategicMergePatchTest, MergeDirectiveInListIsRefused) {
  ExpectUnconverted(
      kTwoContainers,
      R"({"spec":{"containers":[{"name":"a","$patch":"merge"}]}})",
      "merging lists cannot yet be specified in the patch");
}

TEST_F(StrategicMergePatchTest, ReplaceDirectiveInMap) {
  EXPECT_EQ(
      MustPatch(
          R"({"spec":{"securityContext":{"runAsGroup":2,"fsGroup":3}}})",
          R"({"spec":{"securityContext":{"$patch":"replace","runAsUser":1}}})"),
      J(R"({"spec":{"securityContext":{"runAsUser":1}}})"));
}

TEST_F(StrategicMergePatchTest, DeleteDirectiveInMapEmptiesIt) {
  EXPECT_EQ(MustPatch(R"({"spec":{"securityContext":{"runAsGroup":2}}})",
                      R"({"spec":{"securityContext":{"$patch":"delete"}}})"),
            J(R"({"spec":{"securityContext":{}}})"));
}

TEST_F(StrategicMergePatchTest, UnknownOrMergeDirectiveInMap) {
  ExpectUnconverted(
      R"({"spec":{"securityContext":{}}})",
      R"({"spec":{"securityContext":{"$patch":"merge","runAsUser":1}}})",
      "unknown patch type: merge in map: map[$patch:merge "
      "runAsUser:1]");
  ExpectUnconverted(R"({"spec":{}})", R"({"$patch":5})",
                    "unknown patch type: %!s(int64=5) in map: map[$patch:5]");
}

TEST_F(StrategicMergePatchTest, MissingMergeKey) {
  ExpectUnconverted(kTwoContainers,
                    R"({"spec":{"containers":[{"image":"nginx"}]}})",
                    "map: map[image:nginx] does not contain declared merge "
                    "key: name");
}

// Nested keyed lists: ports by containerPort, env by name.
TEST_F(StrategicMergePatchTest, PortsMergeByContainerPort) {
  EXPECT_EQ(
      MustPatch(
          R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":443}]}]}})",
          R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http"}]}]}})"),
      J(R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"protocol":"TCP","name":"http"},{"containerPort":443}]}]}})"));
}

TEST_F(StrategicMergePatchTest, EnvMergeByNameAndNullDeletes) {
  EXPECT_EQ(
      MustPatch(
          R"({"spec":{"containers":[{"name":"a","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}]}})",
          R"({"spec":{"containers":[{"name":"a","env":[{"name":"A","value":null}]}]}})"),
      J(R"({"spec":{"containers":[{"name":"a","env":[{"name":"A"},{"name":"B","value":"2"}]}]}})"));
}

// volumes: merge by name with retainKeys.
TEST_F(StrategicMergePatchTest, VolumesRetainKeys) {
  EXPECT_EQ(
      MustPatch(
          R"({"spec":{"volumes":[{"name":"v","hostPath":{"path":"/x"}},{"name":"w","emptyDir":{}}]}})",
          R"({"spec":{"volumes":[{"name":"v","$retainKeys":["emptyDir","name"],"emptyDir":{"medium":"Memory"}}]}})"),
      J(R"({"spec":{"volumes":[{"name":"v","emptyDir":{"medium":"Memory"}},{"name":"w","emptyDir":{}}]}})"));
}

TEST_F(StrategicMergePatchTest, RetainKeysMustCoverThePatch) {
  ExpectBadRequest(
      R"({"spec":{"volumes":[{"name":"v"}]}})",
      R"({"spec":{"volumes":[{"name":"v","$retainKeys":["name"],"emptyDir":{}}]}})",
      "invalid patch format of retainKeys");
  ExpectBadRequest(
      R"({"spec":{"volumes":[{"name":"v"}]}})",
      R"({"spec":{"volumes":[{"name":"v","$retainKeys":"name"}]}})",
      "invalid patch format of retainKeys");
}

// conditions by type.
TEST_F(StrategicMergePatchTest, ConditionsMergeByType) {
  EXPECT_EQ(
      MustPatch(
          R"({"status":{"conditions":[{"type":"Ready","status":"False"},{"type":"Scheduled","status":"True"}]}})",
          R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})"),
      J(R"({"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"Scheduled","status":"True"}]}})"));
}

// Lists without a merge strategy are replaced.
TEST_F(StrategicMergePatchTest, TolerationsAreAtomic) {
  EXPECT_EQ(MustPatch(R"({"spec":{"tolerations":[{"key":"a"},{"key":"b"}]}})",
                      R"({"spec":{"tolerations":[{"key":"c"}]}})"),
            J(R"({"spec":{"tolerations":[{"key":"c"}]}})"));
  EXPECT_EQ(
      MustPatch(R"({"spec":{"containers":[{"name":"a","args":["x","y"]}]}})",
                R"({"spec":{"containers":[{"name":"a","args":["z"]}]}})"),
      J(R"({"spec":{"containers":[{"name":"a","args":["z"]}]}})"));
}

// Primitive lists with strategy merge behave as sets.
TEST_F(StrategicMergePatchTest, FinalizersMergeAsSet) {
  EXPECT_EQ(MustPatch(R"({"metadata":{"finalizers":["a","b"]}})",
                      R"({"metadata":{"finalizers":["c","a"]}})"),
            J(R"({"metadata":{"finalizers":["c","a","b"]}})"));
}

TEST_F(StrategicMergePatchTest, DeleteFromPrimitiveList) {
  EXPECT_EQ(
      MustPatch(
          R"({"metadata":{"finalizers":["a","b","c"]}})",
          R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a","c"]}})"),
      J(R"({"metadata":{"finalizers":["b"]}})"));
}

TEST_F(StrategicMergePatchTest, PrimitiveListWithOrderAndDeletion) {
  // What kubectl apply sends when the finalizers go from [a b] to [b c].
  EXPECT_EQ(MustPatch(R"({"metadata":{"finalizers":["a","b"]}})",
                      R"({"metadata":{"$setElementOrder/finalizers":["b","c"],
                                "$deleteFromPrimitiveList/finalizers":["a"],
                                "finalizers":["c"]}})"),
            J(R"({"metadata":{"finalizers":["b","c"]}})"));
}

TEST_F(StrategicMergePatchTest, BadDirectivePrefixes) {
  ExpectBadRequest(
      R"({"metadata":{"finalizers":["a"]}})",
      R"({"metadata":{"$deleteFromPrimitiveListfinalizers":["a"]}})",
      "invalid patch format of primitive list");
  ExpectBadRequest(R"({"metadata":{}})",
                   R"({"metadata":{"$setElementOrderfinalizers":["a"]}})",
                   "invalid patch format of setElementOrder list");
  ExpectUnconverted(R"({"metadata":{}})",
                    R"({"metadata":{"$setElementOrder/finalizers":"a"}})",
                    "expected a []interface {}, but received a string");
}

TEST_F(StrategicMergePatchTest, ListsOfListsAre422) {
  Result<json> r =
      Patch(R"({"spec":{"matrix":[]}})", R"({"spec":{"matrix":[["x"]]}})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(r.status().message(), kRejectedMessage);
}

TEST_F(StrategicMergePatchTest, MixedElementTypes) {
  ExpectUnconverted(R"({"metadata":{"finalizers":["a"]}})",
                    R"({"metadata":{"finalizers":[1]}})",
                    "list element types are not identical: [[a] [1]]");
}

// Maps.
TEST_F(StrategicMergePatchTest, MapsMergeAndNullDeletes) {
  EXPECT_EQ(MustPatch(R"({"metadata":{"name":"p","labels":{"x":"1","y":"2"}}})",
                      R"({"metadata":{"labels":{"x":null,"z":"3"}}})"),
            J(R"({"metadata":{"name":"p","labels":{"y":"2","z":"3"}}})"));
}

TEST_F(StrategicMergePatchTest, ReplaceStrategyOnMapField) {
  EXPECT_EQ(
      MustPatch(R"({"spec":{"affinity":{"nodeAffinity":{"a":"1","b":"2"}}}})",
                R"({"spec":{"affinity":{"nodeAffinity":{"a":"3"}}}})"),
      J(R"({"spec":{"affinity":{"nodeAffinity":{"a":"3"}}}})"));
}

TEST_F(StrategicMergePatchTest, AnyFieldMergesLikeMergePatch) {
  EXPECT_EQ(MustPatch(R"({"payload":{"a":[1,2],"m":{"x":1,"y":2}}})",
                      R"({"payload":{"a":[3],"m":{"x":null,"z":3}}})"),
            J(R"({"payload":{"a":[3],"m":{"y":2,"z":3}}})"));
}

TEST_F(StrategicMergePatchTest, CopiedValuesLoseNullsAndDirectives) {
  EXPECT_EQ(MustPatch(R"({"spec":{}})",
                      R"({"spec":{"nodeSelector":{"a":"1","b":null}}})"),
            J(R"({"spec":{"nodeSelector":{"a":"1"}}})"));
  // A new map carrying $patch is dropped; so are list elements carrying it.
  EXPECT_EQ(
      MustPatch(
          R"({"spec":{}})",
          R"({"spec":{"securityContext":{"$patch":"replace","runAsUser":1},
                            "initContainers":[{"name":"x"},{"name":"y","$patch":"delete"}]}})"),
      J(R"({"spec":{"initContainers":[{"name":"x"}]}})"));
}

TEST_F(StrategicMergePatchTest, TypeChangeReplaces) {
  EXPECT_EQ(MustPatch(R"({"payload":{"a":{"b":1}}})",
                      R"({"payload":{"a":[{"c":null,"d":1}]}})"),
            J(R"({"payload":{"a":[{"d":1}]}})"));
}

TEST_F(StrategicMergePatchTest, TopLevelBodies) {
  EXPECT_EQ(MustPatch(R"({"a":1})", "null"), J(R"({"a":1})"));
  ExpectBadRequest(R"({"a":1})", R"([1])",
                   "json: cannot unmarshal array into Go value of type "
                   "map[string]interface {}");
  EXPECT_EQ(MustPatch(R"({"a":1})", "{}"), J(R"({"a":1})"));
}

TEST_F(StrategicMergePatchTest, NoMetadataRootBehavesLikeMergePatch) {
  api::Schema empty_schema;
  Result<json> r = ApplyStrategicMergePatch(J(R"({"a":[1],"b":{"c":1,"d":2}})"),
                                            J(R"({"a":[2],"b":{"c":null}})"),
                                            empty_schema, nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value(), J(R"({"a":[2],"b":{"d":2}})"));
}

// Duplicate keys and ordering directives: the cases where upstream's
// result depends on the order it scans lists in.
constexpr char kEnvPod[] = R"({"spec":{"containers":[{"name":"x","env":%s}]}})";

std::string EnvJson(const char* env) {
  std::string out = kEnvPod;
  out.replace(out.find("%s"), 2, env);
  return out;
}

TEST_F(StrategicMergePatchTest, DuplicatePatchKeysMergeIntoTheAppendedElement) {
  // The second C lands on the C the first one appended.
  EXPECT_EQ(
      MustPatch(EnvJson(R"([{"name":"A","value":"0"},{"name":"B"}])").c_str(),
                EnvJson(R"([{"name":"C","value":"1"},{"name":"C","value":"2"},
                      {"name":"A","value":"3"}])")
                    .c_str()),
      J(EnvJson(R"([{"name":"C","value":"2"},{"name":"A","value":"3"},
                    {"name":"B"}])")
            .c_str()));
}

TEST_F(StrategicMergePatchTest, DeletedKeyAddedBackByTheSamePatch) {
  EXPECT_EQ(
      MustPatch(EnvJson(R"([{"name":"A","value":"old"},{"name":"B"}])").c_str(),
                EnvJson(R"([{"name":"A","$patch":"delete"},
                            {"name":"A","value":"new"}])")
                    .c_str()),
      J(EnvJson(R"([{"name":"A","value":"new"},{"name":"B"}])").c_str()));
}

TEST_F(StrategicMergePatchTest, NullMergeKeyMovesOnToTheNextElement) {
  // A null key in the patch matches the first element whose key is null and
  // deletes that key, so the next null-keyed patch element lands on the
  // second one; the keyless results then fail the final ordering step.
  ExpectUnconverted(
      EnvJson(R"([{"name":null,"value":"1"},{"name":null,"value":"2"}])")
          .c_str(),
      EnvJson(R"([{"name":null,"value":"x"},{"name":null,"value":"y"}])")
          .c_str(),
      "map: map[value:x] does not contain declared merge key: name");
}

TEST_F(StrategicMergePatchTest, SetElementOrderWithDuplicateLiveKeys) {
  // The patch merges into the first A; both As take A's place in the
  // directive, in list order.
  EXPECT_EQ(MustPatch(EnvJson(R"([{"name":"A","value":"1"},{"name":"B"},
                      {"name":"A","value":"2"}])")
                          .c_str(),
                      R"({"spec":{"containers":[{"name":"x",
                "$setElementOrder/env":[{"name":"B"},{"name":"A"}],
                "env":[{"name":"A","value":"3"}]}]}})"),
            J(EnvJson(R"([{"name":"B"},{"name":"A","value":"3"},
                    {"name":"A","value":"2"}])")
                  .c_str()));
}

TEST_F(StrategicMergePatchTest, EmptySetElementOrderSortsAsGoDoes) {
  // With an empty directive every element is ordered by its live position.
  // Elements without one compare as "less" than everything (upstream's
  // comparator is not a strict weak ordering), so Go's stable sort moves
  // each live element in front of them: live ones first, new ones reversed.
  EXPECT_EQ(MustPatch(R"({"metadata":{"finalizers":["a","b"]}})",
                      R"({"metadata":{"$setElementOrder/finalizers":[],
                                      "finalizers":["p","q","p","r"]}})"),
            J(R"({"metadata":{"finalizers":["a","b","r","q","p"]}})"));
}

TEST_F(StrategicMergePatchTest, DeleteThenReplaceOrdersByGoArrayAfterDeletes) {
  // Go deletes A by shifting B and C left in the live array, leaving a stale
  // C in the last slot: the server order is [B C C], A has no position and
  // sorts first.
  EXPECT_EQ(
      MustPatch(EnvJson(R"([{"name":"A"},{"name":"B"},{"name":"C"}])").c_str(),
                R"({"spec":{"containers":[{"name":"x",
                      "$setElementOrder/env":[],
                      "env":[{"name":"A","$patch":"delete"},{"$patch":"replace"},
                             {"name":"B"},{"name":"C"},{"name":"A"}]}]}})"),
      J(EnvJson(R"([{"name":"A"},{"name":"B"},{"name":"C"}])").c_str()));
}

// The cost of list merges, counted in element comparisons (ListComparisons)
// rather than timed, so that no machine is too slow for it. A list 8 times
// longer must cost at most 16 times as much: the hash lookups grow 8 times,
// the order sorts up to about 13 times (n log^2 n); comparing every element
// with every other one costs 64 times.
class StrategicMergePatchCostTest : public StrategicMergePatchTest {
 protected:
  static constexpr int kSmall = 1000;
  static constexpr int kLarge = 8 * kSmall;
  static constexpr double kMaxGrowth = 16;

  static std::string Name(int i) { return "E" + std::to_string(i); }

  // Comparisons one patch costs; the patch must apply.
  uint64_t Cost(const json& original, const json& patch) {
    uint64_t before = ListComparisons();
    Result<json> r =
        ApplyStrategicMergePatch(original, patch, resolver_, &types_.at("Pod"));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return ListComparisons() - before;
  }

  // n live env entries, every 16th one twice; a patch that deletes the
  // first eighth, updates the second half, adds as many new ones and
  // orders them with $setElementOrder (what kubectl apply sends).
  uint64_t KeyedCost(int n) {
    json live = json::array();
    for (int i = 0; i < n; ++i) live.push_back({{"name", Name(i)}});
    for (int i = 0; i < n; i += 16) live.push_back({{"name", Name(i)}});
    json env = json::array(), order = json::array();
    for (int i = 0; i < n / 8; ++i) {
      env.push_back({{"name", Name(i)}, {"$patch", "delete"}});
    }
    for (int i = n / 2; i < n / 2 + n; ++i) {
      env.push_back({{"name", Name(i)}, {"value", "v"}});
      order.push_back({{"name", Name(i)}});
    }
    json original = {
        {"spec", {{"containers", {{{"name", "x"}, {"env", live}}}}}}};
    json patch = {
        {"spec",
         {{"containers",
           {{{"name", "x"}, {"env", env}, {"$setElementOrder/env", order}}}}}}};
    return Cost(original, patch);
  }

  // The same shape on a primitive list merged as a set, with
  // $deleteFromPrimitiveList.
  uint64_t PrimitiveCost(int n) {
    json live = json::array(), add = json::array(), remove = json::array();
    for (int i = 0; i < n; ++i) live.push_back(Name(i));
    for (int i = 0; i < n; i += 16) live.push_back(Name(i));
    for (int i = 0; i < n / 8; ++i) remove.push_back(Name(i));
    for (int i = n / 2; i < n / 2 + n; ++i) add.push_back(Name(i));
    json original = {{"metadata", {{"finalizers", live}}}};
    json patch = {{"metadata",
                   {{"finalizers", add},
                    {"$setElementOrder/finalizers", add},
                    {"$deleteFromPrimitiveList/finalizers", remove}}}};
    return Cost(original, patch);
  }
};

TEST_F(StrategicMergePatchCostTest, KeyedListMergeIsNearLinear) {
  uint64_t small = KeyedCost(kSmall);
  uint64_t large = KeyedCost(kLarge);
  ASSERT_GT(small, 0u);
  EXPECT_LE(static_cast<double>(large), kMaxGrowth * small)
      << "comparisons: " << small << " for " << kSmall << " entries, " << large
      << " for " << kLarge;
}

TEST_F(StrategicMergePatchCostTest, PrimitiveListMergeIsNearLinear) {
  uint64_t small = PrimitiveCost(kSmall);
  uint64_t large = PrimitiveCost(kLarge);
  ASSERT_GT(small, 0u);
  EXPECT_LE(static_cast<double>(large), kMaxGrowth * small)
      << "comparisons: " << small << " for " << kSmall << " entries, " << large
      << " for " << kLarge;
}

TEST_F(StrategicMergePatchTest, ArbitraryInputsNeverThrow) {
  const char* originals[] = {
      kTwoContainers,
      R"({"spec":{"containers":[1,"x",null,[]],"volumes":{"a":1}},"metadata":{"finalizers":[{"a":1}]}})",
      R"({"metadata":{"finalizers":[null,1.5,2]},"status":{"conditions":[{"status":1}]}})"};
  const char* patches[] = {
      R"({"spec":{"containers":[{"name":{"x":1}},{"name":[1]},null,{"$patch":null}]}})",
      R"({"spec":{"$setElementOrder/containers":[null,1],"containers":[{"name":"a"}]}})",
      R"({"spec":{"$setElementOrder/volumes":[{"name":"v"}],"$retainKeys":[1,null]}})",
      R"({"metadata":{"$deleteFromPrimitiveList/finalizers":[{"a":1}],"finalizers":null}})",
      R"({"metadata":{"$setElementOrder/finalizers":[[1]],"finalizers":[[2]]}})",
      R"({"status":{"conditions":[{"type":"x","$patch":"delete"},{"$patch":"replace"}],"$patch":"delete"}})",
      R"({"spec":{"containers":{"$patch":"replace"},"tolerations":[{"$retainKeys":5}]}})"};
  for (const char* o : originals) {
    for (const char* p : patches) {
      EXPECT_NO_THROW({
        Result<json> r = Patch(o, p);
        (void)r;
      }) << o
         << " " << p;
    }
  }
  json deep = 1;
  for (int i = 0; i < 5000; ++i) {
    json next = json::object();
    next["payload"] = std::move(deep);
    deep = std::move(next);
  }
  Result<json> r = ApplyStrategicMergePatch(J(R"({"payload":{}})"), deep,
                                            resolver_, &types_.at("Pod"));
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
}

}  // namespace
}  // namespace kmock::patch
