#include "patch/strategic_merge_patch.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

#include "patch/patch_status.h"

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
