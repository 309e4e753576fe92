#include "api/json_encode.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kmock::api {
namespace {

using nlohmann::json;

const Type& TypeNamed(const char* name) {
  const Type* t = Schema::Builtin().Find(name);
  EXPECT_NE(t, nullptr) << name;
  return *t;
}

std::string Str(std::string_view s) {
  std::string out;
  AppendJsonString(s, &out);
  return out;
}

std::string Float(double v) {
  std::string out;
  AppendGoFloat(v, &out);
  return out;
}

TEST(JsonStringTest, EscapesLikeGoHtmlSafe) {
  EXPECT_EQ(Str("plain text"), R"("plain text")");
  EXPECT_EQ(Str("<a&b>"), R"("\u003ca\u0026b\u003e")");
  EXPECT_EQ(Str("q\"b\\"), R"("q\"b\\")");
  EXPECT_EQ(Str("\n\r\t\b\f"), R"("\n\r\t\b\f")");
  EXPECT_EQ(Str(std::string("\x01\x1f\x7f", 3)), "\"\\u0001\\u001f\x7f\"");
  EXPECT_EQ(Str(std::string("a\0b", 3)), R"("a\u0000b")");
  EXPECT_EQ(Str("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  EXPECT_EQ(Str("x\xe2\x80\xa8y\xe2\x80\xa9z"), R"("x\u2028y\u2029z")");
}

TEST(JsonStringTest, InvalidUtf8BecomesReplacementPerByte) {
  EXPECT_EQ(Str("a\xff"
                "b"),
            R"("a\ufffdb")");
  // A truncated sequence, a UTF-16 surrogate, an overlong form, and a code
  // point past U+10FFFF: Go replaces each byte it cannot decode.
  EXPECT_EQ(Str("\xe2\x82"), R"("\ufffd\ufffd")");
  EXPECT_EQ(Str("\xed\xa0\x80"), R"("\ufffd\ufffd\ufffd")");
  EXPECT_EQ(Str("\xc0\xaf"), R"("\ufffd\ufffd")");
  EXPECT_EQ(Str("\xf4\x90\x80\x80"), R"("\ufffd\ufffd\ufffd\ufffd")");
}

TEST(GoFloatTest, PrintsAsEncodingJson) {
  EXPECT_EQ(Float(1.5), "1.5");
  EXPECT_EQ(Float(100.0), "100");
  EXPECT_EQ(Float(0.1), "0.1");
  EXPECT_EQ(Float(-2.25), "-2.25");
  EXPECT_EQ(Float(-0.0), "-0");
  EXPECT_EQ(Float(0.0), "0");
  EXPECT_EQ(Float(0.000001), "0.000001");
  EXPECT_EQ(Float(1e-7), "1e-7");
  EXPECT_EQ(Float(1.2345e-10), "1.2345e-10");
  EXPECT_EQ(Float(1e20), "100000000000000000000");
  EXPECT_EQ(Float(1e21), "1e+21");
  EXPECT_EQ(Float(1.5e300), "1.5e+300");
  EXPECT_EQ(Float(5e-324), "5e-324");
  EXPECT_EQ(Float(123456789012345678.0), "123456789012345680");
  EXPECT_EQ(Float(std::nan("")), "null");
  EXPECT_EQ(Float(std::numeric_limits<double>::infinity()), "null");
}

TEST(AppendJsonTest, SortedCompactAndGoNumbers) {
  json v = json::parse(
      R"({"b":[1,-2,3.5,true,false,null],"a":{"z":"<","y":{}},"c":[]})");
  v["big"] = std::numeric_limits<uint64_t>::max();
  v["min"] = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(EncodeJson(v),
            R"({"a":{"y":{},"z":"\u003c"},"b":[1,-2,3.5,true,false,null],)"
            R"("big":18446744073709551615,"c":[],"min":-9223372036854775808})");
  EXPECT_EQ(EncodeJson(json("x")), R"("x")");
  EXPECT_EQ(EncodeJson(json()), "null");
}

TEST(AppendJsonTest, SameBytesAsDumpWithoutSpecialCharacters) {
  json v = json::parse(R"({"k":[{"b":1,"a":"x"},{"m":{"n":[1,2,{"o":null}]}}],
                          "e":"plain","d":-17,"u":true})");
  EXPECT_EQ(EncodeJson(v), v.dump());
  std::string out = "prefix:";
  AppendJson(v, &out);
  EXPECT_EQ(out, "prefix:" + v.dump());
}

// The expected bytes below are written by hand in the order kube-apiserver
// writes a Pod: Go's encoding/json follows the field declaration order of
// k8s.io/api core/v1 (TypeMeta's kind and apiVersion first), sorts map keys
// (labels, annotations, nodeSelector, resources) and escapes <, >, &.
constexpr char kPodBytes[] =
    R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-0",)"
    R"("generateName":"web-","namespace":"default","uid":"6f1c2b9e-1111-4a4a-9a9a-0123456789ab",)"
    R"("resourceVersion":"42","creationTimestamp":"2024-05-01T10:00:00Z",)"
    R"("labels":{"app":"web","tier":"a\u003cb"},"annotations":{"note":"x\u0026y"},)"
    R"("ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-abc",)"
    R"("uid":"u1","controller":true,"blockOwnerDeletion":true}],"finalizers":["f"],)"
    R"("managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1",)"
    R"("time":"2024-05-01T10:00:00Z","fieldsType":"FieldsV1",)"
    R"("fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}}]},)"
    R"("spec":{"volumes":[{"name":"data","emptyDir":{}}],)"
    R"("containers":[{"name":"web","image":"nginx:1.25","command":["nginx"],)"
    R"("ports":[{"name":"http","containerPort":80,"protocol":"TCP"}],)"
    R"("env":[{"name":"A","value":"1"}],)"
    R"("resources":{"limits":{"cpu":"500m","memory":"128Mi"},"requests":{"cpu":"100m"}},)"
    R"("volumeMounts":[{"name":"data","mountPath":"/data"}],)"
    R"("terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",)"
    R"("imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always",)"
    R"("terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst",)"
    R"("nodeSelector":{"disk":"ssd","zone":"a"},"serviceAccountName":"default",)"
    R"("serviceAccount":"default","nodeName":"node-1","securityContext":{},)"
    R"("schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-ready",)"
    R"("operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"priority":0,)"
    R"("enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},)"
    R"("status":{"phase":"Running","conditions":[{"type":"Ready","status":"True",)"
    R"("lastProbeTime":null,"lastTransitionTime":"2024-05-01T10:00:05Z"}],)"
    R"("hostIP":"10.0.0.1","hostIPs":[{"ip":"10.0.0.1"}],"podIP":"10.244.0.5",)"
    R"("podIPs":[{"ip":"10.244.0.5"}],"startTime":"2024-05-01T10:00:00Z",)"
    R"("containerStatuses":[{"name":"web","state":{"running":{"startedAt":"2024-05-01T10:00:03Z"}},)"
    R"("lastState":{},"ready":true,"restartCount":0,"image":"nginx:1.25",)"
    R"("imageID":"docker.io/library/nginx@sha256:abc","containerID":"containerd://123",)"
    R"("started":true}],"qosClass":"Burstable"}})";

// The same for a Deployment (k8s.io/api apps/v1 order).
constexpr char kDeploymentBytes[] =
    R"({"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web",)"
    R"("namespace":"default","uid":"u2","resourceVersion":"7","generation":1,)"
    R"("creationTimestamp":"2024-05-01T10:00:00Z","labels":{"app":"web"},)"
    R"("annotations":{"deployment.kubernetes.io/revision":"1"}},)"
    R"("spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},)"
    R"("template":{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},)"
    R"("spec":{"containers":[{"name":"web","image":"nginx","resources":{},)"
    R"("terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",)"
    R"("imagePullPolicy":"Always"}],"restartPolicy":"Always",)"
    R"("terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},)"
    R"("schedulerName":"default-scheduler"}},"strategy":{"type":"RollingUpdate",)"
    R"("rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},)"
    R"("revisionHistoryLimit":10,"progressDeadlineSeconds":600},)"
    R"("status":{"observedGeneration":1,"replicas":3,"updatedReplicas":3,)"
    R"("readyReplicas":3,"availableReplicas":3,"conditions":[{"type":"Available",)"
    R"("status":"True","lastUpdateTime":"2024-05-01T10:00:10Z",)"
    R"("lastTransitionTime":"2024-05-01T10:00:10Z","reason":"MinimumReplicasAvailable",)"
    R"("message":"Deployment has minimum availability."}]}})";

TEST(EncodeObjectJsonTest, PodAsKubeApiserverWritesIt) {
  // Parsing sorts the keys; encoding must restore the Go order.
  json pod = json::parse(kPodBytes);
  ASSERT_NE(pod.dump(), kPodBytes);
  EXPECT_EQ(EncodeObjectJson(pod, TypeNamed("io.k8s.api.core.v1.Pod"),
                             Schema::Builtin()),
            kPodBytes);
}

TEST(EncodeObjectJsonTest, DeploymentAsKubeApiserverWritesIt) {
  json d = json::parse(kDeploymentBytes);
  EXPECT_EQ(EncodeObjectJson(d, TypeNamed("io.k8s.api.apps.v1.Deployment"),
                             Schema::Builtin()),
            kDeploymentBytes);
}

TEST(EncodeObjectJsonTest, ListsStatusesAndAppending) {
  std::string expected =
      std::string(R"({"kind":"PodList","apiVersion":"v1",)") +
      R"("metadata":{"resourceVersion":"9","continue":"c"},"items":[)" +
      kPodBytes + "," + kPodBytes + "]}";
  json list = json::parse(expected);
  std::string out = "x";
  AppendObjectJson(list, TypeNamed("io.k8s.api.core.v1.PodList"), &out,
                   Schema::Builtin());
  EXPECT_EQ(out, "x" + expected);

  constexpr char kStatus[] =
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
      R"("message":"pods \"x\" not found","reason":"NotFound",)"
      R"("details":{"name":"x","kind":"pods","causes":[{"reason":"FieldValueInvalid",)"
      R"("message":"m","field":"f"}]},"code":404})";
  EXPECT_EQ(
      EncodeObjectJson(json::parse(kStatus),
                       TypeNamed("io.k8s.apimachinery.pkg.apis.meta.v1.Status"),
                       Schema::Builtin()),
      kStatus);
}

TEST(EncodeObjectJsonTest, UnknownFieldsFollowKnownOnesSorted) {
  json pod =
      json::parse(R"({"zeta":1,"spec":{"containers":[{"zz":[{"b":1,"a":2}],
      "image":"i","aa":true,"name":"c"}]},"alpha":{"y":1,"x":2},"kind":"Pod"})");
  EXPECT_EQ(
      EncodeObjectJson(pod, TypeNamed("io.k8s.api.core.v1.Pod"),
                       Schema::Builtin()),
      R"({"kind":"Pod","spec":{"containers":[{"name":"c","image":"i",)"
      R"("aa":true,"zz":[{"a":2,"b":1}]}]},"alpha":{"x":2,"y":1},"zeta":1})");
}

TEST(EncodeObjectJsonTest, ValuesOfTheWrongShapeAreWrittenAsTheyAre) {
  json pod = json::parse(
      R"({"spec":"oops","metadata":{"labels":["b","a"],"name":7},"status":null})");
  EXPECT_EQ(
      EncodeObjectJson(pod, TypeNamed("io.k8s.api.core.v1.Pod"),
                       Schema::Builtin()),
      R"({"metadata":{"name":7,"labels":["b","a"]},"spec":"oops","status":null})");
  EXPECT_EQ(
      EncodeObjectJson(json::array({1, "<"}),
                       TypeNamed("io.k8s.api.core.v1.Pod"), Schema::Builtin()),
      R"([1,"\u003c"])");
}

TEST(EncodeObjectJsonTest, OtherSchemasUseTheirOwnOrder) {
  Schema s;
  ASSERT_EQ(s.LoadJson(R"({"types":[
      {"name":"t.Root","fields":[
         {"name":"zeta","kind":"integer"},
         {"name":"kids","kind":"array","items":{"kind":"object","ref":"t.Kid"}},
         {"name":"byName","kind":"map","items":{"kind":"object","ref":"t.Kid"}},
         {"name":"free","kind":"any"},
         {"name":"alpha","kind":"string"}]},
      {"name":"t.Kid","fields":[{"name":"y"},{"name":"x"}]}]})"),
            "");
  json v = json::parse(R"({"alpha":"a","free":{"b":1,"a":{"d":1,"c":2}},
      "kids":[{"x":1,"y":2,"w":0}],"byName":{"q":{"x":1,"y":2},"p":{"x":3}},
      "zeta":1})");
  EXPECT_EQ(EncodeObjectJson(v, *s.Find("t.Root"), s),
            R"({"zeta":1,"kids":[{"y":2,"x":1,"w":0}],)"
            R"("byName":{"p":{"x":3},"q":{"y":2,"x":1}},)"
            R"("free":{"a":{"c":2,"d":1},"b":1},"alpha":"a"})");
}

TEST(EncodeObjectJsonTest, ManyKeysTakeTheLargeObjectPath) {
  // More keys than fit the encoder's on-stack slots: known fields still come
  // first, in order, and the unknown ones sorted after them.
  json meta = json::object();
  for (int i = 0; i < 100; ++i) meta["x" + std::to_string(1000 + i)] = i;
  meta["uid"] = "u";
  meta["name"] = "n";
  json pod = {{"metadata", meta}};
  std::string out = EncodeObjectJson(pod, TypeNamed("io.k8s.api.core.v1.Pod"),
                                     Schema::Builtin());
  EXPECT_EQ(out.substr(0, 37), R"({"metadata":{"name":"n","uid":"u","x1)");
  EXPECT_EQ(json::parse(out), pod);
}

TEST(SchemaOrderTest, TypeMetaComesFirstInEveryKind) {
  // Go writes the inline TypeMeta (kind, then apiVersion) before any other
  // field of a kind and of its List.
  for (const auto& [name, type] : Schema::Builtin().types()) {
    if (type.FindField("kind") == nullptr ||
        type.FindField("apiVersion") == nullptr ||
        type.FindField("metadata") == nullptr) {
      continue;
    }
    ASSERT_GE(type.fields.size(), 2u) << name;
    EXPECT_EQ(type.fields[0].name, "kind") << name;
    EXPECT_EQ(type.fields[1].name, "apiVersion") << name;
  }
}

}  // namespace
}  // namespace kmock::api
