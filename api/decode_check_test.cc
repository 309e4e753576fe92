#include "api/decode_check.h"

#include <gtest/gtest.h>

namespace kmock::api {
namespace {

using nlohmann::json;

const Type& PodType() {
  return *Schema::Builtin().Find("io.k8s.api.core.v1.Pod");
}

json Pod(const char* spec_json) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}}},
              {"spec", json::parse(spec_json)}};
  return pod;
}

TEST(UnknownFieldsTest, FindsNestedUnknownFields) {
  json pod = Pod(R"({"containers":[{"name":"a","image":"x"},
                                   {"name":"b","image":"y","foo":1,
                                    "ports":[{"containerPort":80,"nme":"x"}]}],
                     "bar":true})");
  pod["metadata"]["labelz"] = json::object();
  pod["status"] = {{"phase", "Running"},
                   {"conditions", {{{"type", "Ready"}, {"zz", 1}}}}};
  EXPECT_EQ(UnknownFields(pod, PodType(), Schema::Builtin()),
            (std::vector<std::string>{
                "metadata.labelz", "spec.bar", "spec.containers[1].foo",
                "spec.containers[1].ports[0].nme", "status.conditions[0].zz"}));
}

TEST(UnknownFieldsTest, AcceptsAKnownPodAndRootTypeFields) {
  json pod = Pod(R"({"containers":[{"name":"a","image":"x",
      "env":[{"name":"A","valueFrom":{"configMapKeyRef":{"name":"c","key":"k"}}}],
      "livenessProbe":{"httpGet":{"port":"http"},"periodSeconds":3},
      "resources":{"limits":{"cpu":"1"}}}],
      "volumes":[{"name":"v","configMap":{"name":"c"}}]})");
  EXPECT_TRUE(UnknownFields(pod, PodType(), Schema::Builtin()).empty());
}

TEST(UnknownFieldsTest, IgnoresSubtreesThatKeepUnknownFields) {
  json pod = Pod(R"({"containers":[{"name":"a"}],
      "volumes":[{"name":"v","iscsi":{"anything":{"goes":1}}}]})");
  pod["metadata"]["managedFields"] =
      json::parse(R"([{"manager":"m","fieldsV1":{"f:spec":{"f:x":{}}}}])");
  EXPECT_TRUE(UnknownFields(pod, PodType(), Schema::Builtin()).empty());

  Schema s;
  ASSERT_EQ(s.LoadJson(R"({"types":[
      {"name":"t.Root","fields":[{"name":"open","kind":"object","ref":"t.Open"},
                                 {"name":"closed","kind":"object","ref":"t.Closed"}]},
      {"name":"t.Open","preserve_unknown_fields":true,"fields":[]},
      {"name":"t.Closed","fields":[{"name":"x"}]}]})"),
            "");
  json obj = json::parse(R"({"open":{"a":1},"closed":{"x":"1","y":2}})");
  EXPECT_EQ(UnknownFields(obj, *s.Find("t.Root"), s),
            std::vector<std::string>{"closed.y"});
}

TEST(TypeCheckTest, WordsErrorsAsGoDoes) {
  EXPECT_EQ(FirstTypeError(Pod(R"({"containers":[{"name":"a","ports":"80"}]})"),
                           PodType(), Schema::Builtin()),
            "json: cannot unmarshal string into Go struct field "
            "Container.spec.containers.ports of type []v1.ContainerPort");
  EXPECT_EQ(FirstTypeError(Pod(R"({"containers":"x"})"), PodType(),
                           Schema::Builtin()),
            "json: cannot unmarshal string into Go struct field "
            "PodSpec.spec.containers of type []v1.Container");
  EXPECT_EQ(FirstTypeError(Pod(R"({"containers":["x"]})"), PodType(),
                           Schema::Builtin()),
            "json: cannot unmarshal string into Go struct field "
            "PodSpec.spec.containers of type v1.Container");
  EXPECT_EQ(
      FirstTypeError(
          Pod(R"({"containers":[{"name":"a","ports":[{"containerPort":1.5}]}]})"),
          PodType(), Schema::Builtin()),
      "json: cannot unmarshal number 1.5 into Go struct field "
      "ContainerPort.spec.containers.ports.containerPort of type int32");
  EXPECT_EQ(FirstTypeError(Pod(R"({"containers":[{"name":7}]})"), PodType(),
                           Schema::Builtin()),
            "json: cannot unmarshal number into Go struct field "
            "Container.spec.containers.name of type string");
  json labels = Pod(R"({"containers":[]})");
  labels["metadata"]["labels"] = {{"a", 1}};
  EXPECT_EQ(FirstTypeError(labels, PodType(), Schema::Builtin()),
            "json: cannot unmarshal number into Go struct field "
            "ObjectMeta.metadata.labels of type string");
  EXPECT_EQ(FirstTypeError(Pod(R"("x")"), PodType(), Schema::Builtin()),
            "json: cannot unmarshal string into Go struct field Pod.spec of "
            "type v1.PodSpec");
}

TEST(TypeCheckTest, ScalarTypesWithTheirOwnDecoding) {
  EXPECT_EQ(
      FirstTypeError(
          Pod(R"({"containers":[{"name":"a","resources":{"limits":{"cpu":true}}}]})"),
          PodType(), Schema::Builtin()),
      "quantities must match the regular expression "
      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_EQ(
      FirstTypeError(
          Pod(R"({"containers":[{"name":"a","resources":{"limits":{"cpu":2}}}]})"),
          PodType(), Schema::Builtin()),
      std::nullopt);
  EXPECT_EQ(
      FirstTypeError(
          Pod(R"({"containers":[{"name":"a","livenessProbe":{"tcpSocket":{"port":{}}}}]})"),
          PodType(), Schema::Builtin()),
      "json: cannot unmarshal object into Go struct field "
      "TCPSocketAction.spec.containers.livenessProbe.tcpSocket.port of type "
      "int32");
  json t = Pod(R"({"containers":[]})");
  t["metadata"]["creationTimestamp"] = 5;
  EXPECT_EQ(FirstTypeError(t, PodType(), Schema::Builtin()),
            "json: cannot unmarshal number into Go struct field "
            "ObjectMeta.metadata.creationTimestamp of type string");
  EXPECT_EQ(FirstTypeError(Pod(R"({"containers":null,"priority":null})"),
                           PodType(), Schema::Builtin()),
            std::nullopt);
}

TEST(CheckBodyTest, StatusesForTheServer) {
  json pod = Pod(R"({"containers":[{"name":"a"}],"foo":1,"bar":2})");
  std::vector<std::string> warnings;
  Status strict = CheckBody(pod, PodType(), "Pod", "v1", "Strict", &warnings,
                            Schema::Builtin());
  EXPECT_EQ(strict.code(), StatusCode::kBadRequest);
  EXPECT_EQ(strict.message(),
            "Pod in version \"v1\" cannot be handled as a Pod: strict decoding "
            "error: unknown field \"spec.bar\", unknown field \"spec.foo\"");
  EXPECT_TRUE(warnings.empty());

  EXPECT_TRUE(CheckBody(pod, PodType(), "Pod", "v1", "Warn", &warnings,
                        Schema::Builtin())
                  .ok());
  EXPECT_EQ(warnings, (std::vector<std::string>{"unknown field \"spec.bar\"",
                                                "unknown field \"spec.foo\""}));
  warnings.clear();
  EXPECT_TRUE(CheckBody(pod, PodType(), "Pod", "v1", "Ignore", &warnings,
                        Schema::Builtin())
                  .ok());
  EXPECT_TRUE(warnings.empty());

  Status bad = CheckBody(Pod(R"({"containers":"x","foo":1})"), PodType(), "Pod",
                         "v1", "Strict", &warnings, Schema::Builtin());
  EXPECT_EQ(bad.code(), StatusCode::kBadRequest);
  EXPECT_EQ(bad.message(),
            "Pod in version \"v1\" cannot be handled as a Pod: json: cannot "
            "unmarshal string into Go struct field PodSpec.spec.containers of "
            "type []v1.Container");
}

TEST(CheckBodyTest, DuplicateFieldsAfterUnknownOnes) {
  // The wording and order of kube-apiserver's conformance test for typed
  // objects: `strict decoding error: unknown field "spec.unknownField",
  // duplicate field "spec.replicas"`.
  json d = {{"apiVersion", "apps/v1"},
            {"kind", "Deployment"},
            {"metadata", {{"name", "my-dep"}}},
            {"spec", {{"unknownField", "foo"}, {"replicas", 3}}}};
  const Type& deployment =
      *Schema::Builtin().Find("io.k8s.api.apps.v1.Deployment");
  BodyFindings findings;
  findings.duplicate_fields = {"spec.replicas"};
  std::vector<std::string> warnings;
  Status strict = CheckBody(d, deployment, "Deployment", "v1", "Strict",
                            &warnings, Schema::Builtin(), &findings);
  EXPECT_EQ(strict.code(), StatusCode::kBadRequest);
  EXPECT_EQ(strict.message(),
            "Deployment in version \"v1\" cannot be handled as a Deployment: "
            "strict decoding error: unknown field \"spec.unknownField\", "
            "duplicate field \"spec.replicas\"");

  EXPECT_TRUE(CheckBody(d, deployment, "Deployment", "v1", "Warn", &warnings,
                        Schema::Builtin(), &findings)
                  .ok());
  EXPECT_EQ(warnings,
            (std::vector<std::string>{"unknown field \"spec.unknownField\"",
                                      "duplicate field \"spec.replicas\""}));
  warnings.clear();
  EXPECT_TRUE(CheckBody(d, deployment, "Deployment", "v1", "Ignore", &warnings,
                        Schema::Builtin(), &findings)
                  .ok());
  EXPECT_TRUE(warnings.empty());

  // Only a duplicate: Strict still fails, and no findings means no error.
  d["spec"].erase("unknownField");
  EXPECT_EQ(CheckBody(d, deployment, "Deployment", "v1", "Strict", &warnings,
                      Schema::Builtin(), &findings)
                .message(),
            "Deployment in version \"v1\" cannot be handled as a Deployment: "
            "strict decoding error: duplicate field \"spec.replicas\"");
  EXPECT_TRUE(CheckBody(d, deployment, "Deployment", "v1", "Strict", &warnings,
                        Schema::Builtin())
                  .ok());
}

TEST(StrictDecodingErrorsTest, OrderAndKeysInsideUnknownFields) {
  BodyFindings f;
  f.yaml_error =
      "yaml: unmarshal errors:\n  line 3: key \"a\" already set in map";
  f.duplicate_fields = {"spec.foo.x", "spec.foox", "spec.bar[0].y",
                        "spec.replicas"};
  EXPECT_EQ(
      StrictDecodingErrors({"spec.bar", "spec.foo"}, f),
      (std::vector<std::string>{
          "yaml: unmarshal errors:\n  line 3: key \"a\" already set in map",
          "unknown field \"spec.bar\"", "unknown field \"spec.foo\"",
          "duplicate field \"spec.foox\"",
          "duplicate field \"spec.replicas\""}));
}

TEST(StrictDecodingErrorsTest, YamlErrorsWarnOncePerLine) {
  EXPECT_EQ(StrictDecodingWarnings(
                {"yaml: unmarshal errors:\n  line 3: key \"a\" already set in "
                 "map\n  line 7: key \"b\" already set in map",
                 "unknown field \"x\""}),
            (std::vector<std::string>{"line 3: key \"a\" already set in map",
                                      "line 7: key \"b\" already set in map",
                                      "unknown field \"x\""}));
}

}  // namespace
}  // namespace kmock::api
