#include "server/negotiation.h"

#include <gtest/gtest.h>

#include "server/yaml_json.h"

namespace kmock::server {
namespace {

using nlohmann::json;

constexpr char kTableAccept[] =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/"
    "json;as=Table;v=v1beta1;"
    "g=meta.k8s.io,application/json";
constexpr char kDiscovery127[] =
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
    "application/json";
constexpr char kDiscovery130[] =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
    "application/json";

TEST(NegotiationTest, ParseAcceptKeepsParamsAndSortsByQ) {
  auto ranges = ParseAccept(
      "text/plain;q=0.5, application/json;as=Table;v=v1;g=meta.k8s.io");
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].subtype, "json");
  EXPECT_EQ(ranges[0].params.at("as"), "Table");
  EXPECT_EQ(ranges[1].type, "text");
  EXPECT_DOUBLE_EQ(ranges[1].q, 0.5);
}

TEST(NegotiationTest, TableForGetAndListOnly) {
  auto get = NegotiateOutput(kTableAccept, /*allow_table=*/true);
  ASSERT_TRUE(get.ok());
  EXPECT_TRUE(get->table);
  EXPECT_EQ(get->table_version, "v1");
  EXPECT_EQ(get->ContentType(), "application/json;as=Table;v=v1;g=meta.k8s.io");
  auto write = NegotiateOutput(kTableAccept, /*allow_table=*/false);
  ASSERT_TRUE(write.ok());
  EXPECT_FALSE(write->table);
  EXPECT_EQ(write->ContentType(), "application/json");
}

TEST(NegotiationTest, TableV1beta1WhenOnlyThatIsAsked) {
  auto out = NegotiateOutput(
      "application/json;as=Table;v=v1beta1;g=meta.k8s.io", true);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->table);
  EXPECT_EQ(out->table_version, "v1beta1");
}

TEST(NegotiationTest, PlainJsonProtobufWildcardAndYaml) {
  for (const char* accept :
       {"application/json", "application/json, */*",
        "application/vnd.kubernetes.protobuf,application/json",
        "application/vnd.kubernetes.protobuf, */*", "*/*", ""}) {
    auto out = NegotiateOutput(accept, true);
    ASSERT_TRUE(out.ok()) << accept;
    EXPECT_EQ(out->encoding, Encoding::kJson) << accept;
    EXPECT_FALSE(out->table) << accept;
  }
  auto yaml = NegotiateOutput("application/yaml", true);
  ASSERT_TRUE(yaml.ok());
  EXPECT_EQ(yaml->encoding, Encoding::kYaml);
}

TEST(NegotiationTest, NothingAcceptableIs406) {
  auto out = NegotiateOutput("text/html", true);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kNotAcceptable);
  // A Table-only Accept on a write has nothing we can send.
  auto write =
      NegotiateOutput("application/json;as=Table;v=v1;g=meta.k8s.io", false);
  EXPECT_FALSE(write.ok());
}

TEST(NegotiationTest, DiscoveryPerKubectlVersion) {
  EXPECT_EQ(NegotiateDiscovery(kDiscovery127),
            DiscoveryFormat::kAggregatedV2Beta1);
  EXPECT_EQ(NegotiateDiscovery(kDiscovery130), DiscoveryFormat::kAggregatedV2);
  EXPECT_EQ(NegotiateDiscovery("application/json, */*"),
            DiscoveryFormat::kLegacy);
  EXPECT_EQ(NegotiateDiscovery(""), DiscoveryFormat::kLegacy);
  // Parameter order does not matter.
  EXPECT_EQ(NegotiateDiscovery("application/json;as=APIGroupDiscoveryList;v=v2;"
                               "g=apidiscovery.k8s.io"),
            DiscoveryFormat::kAggregatedV2);
}

TEST(NegotiationTest, DecodeJsonYamlAndRefuseProtobuf) {
  auto j = DecodeBody("application/json", R"({"a":1})");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)["a"], 1);
  auto y = DecodeBody(
      "application/yaml; charset=utf-8",
      "kind: Pod\nspec:\n  replicas: 3\n  name: \"007\"\n  on: true\n");
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(*y,
            (json{{"kind", "Pod"},
                  {"spec", {{"replicas", 3}, {"name", "007"}, {"on", true}}}}));
  auto bad = DecodeBody("application/json", "{nope");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kBadRequest);
  // A protobuf envelope with nothing in it: kube-apiserver's 400.
  auto pb = DecodeBody("application/vnd.kubernetes.protobuf",
                       std::string("k8s\0", 4));
  ASSERT_FALSE(pb.ok());
  EXPECT_EQ(pb.status().code(), StatusCode::kBadRequest);
  auto other = DecodeBody("application/cbor", "x");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kUnsupportedMediaType);
  EXPECT_EQ(
      other.status().message(),
      "the body of the request was in an unknown format - accepted media types "
      "include: application/json, application/yaml, "
      "application/vnd.kubernetes.protobuf");
}

TEST(NegotiationTest, UnrecognizedObjectInGoWords) {
  EXPECT_EQ(
      UnrecognizedObjectError("Pod", R"({"apiVersion":"v1","kind":"Pod",)")
          .message(),
      "the object provided is unrecognized (must be of type Pod): "
      "couldn't get version/kind; json parse error: unexpected end of "
      R"(JSON input ({"apiVersion":"v1","kind":"Pod ...))");
  Status st = UnrecognizedObjectError("Pod", R"({"kind":"Pod",})");
  EXPECT_EQ(st.code(), StatusCode::kBadRequest);
  EXPECT_EQ(
      st.message(),
      "the object provided is unrecognized (must be of type Pod): "
      "couldn't get version/kind; json parse error: invalid character "
      R"('}' looking for beginning of object key string ({"kind":"Pod",}))");
  EXPECT_EQ(UnrecognizedObjectError("Pod", "nope").message(),
            "the object provided is unrecognized (must be of type Pod): "
            "couldn't get version/kind; json parse error: invalid character "
            "'o' in literal null (expecting 'u') (6e6f7065)");
  EXPECT_EQ(UnrecognizedObjectError("Pod", "").message(),
            "the object provided is unrecognized (must be of type Pod): "
            "couldn't get version/kind; json parse error: unexpected end of "
            "JSON input (<empty>)");
}

TEST(NegotiationTest, PatchTypes) {
  EXPECT_EQ(*PatchTypeOf("application/strategic-merge-patch+json"),
            registry::PatchType::kStrategicMerge);
  EXPECT_EQ(*PatchTypeOf("application/merge-patch+json"),
            registry::PatchType::kMergePatch);
  EXPECT_EQ(*PatchTypeOf("application/json-patch+json"),
            registry::PatchType::kJsonPatch);
  EXPECT_EQ(*PatchTypeOf("application/apply-patch+yaml"),
            registry::PatchType::kApply);
  auto bad = PatchTypeOf("application/json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kUnsupportedMediaType);
}

TEST(YamlJsonTest, ScalarsAndRoundTrip) {
  auto v = YamlToJson("a: ~\nb: 1.5\nc: '12'\nd: [x, 2]\ne: -7\nf: 1e3\n");
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE((*v)["a"].is_null());
  EXPECT_DOUBLE_EQ((*v)["b"].get<double>(), 1.5);
  EXPECT_EQ((*v)["c"], "12");
  EXPECT_EQ((*v)["d"], json::array({"x", 2}));
  EXPECT_EQ((*v)["e"], -7);
  json original = {{"name", "true"},
                   {"n", 3},
                   {"list", {1, "2", nullptr}},
                   {"m", {{"k", false}}}};
  auto back = YamlToJson(JsonToYaml(original));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, original);
  EXPECT_FALSE(YamlToJson("a: [unclosed").ok());
}

TEST(DuplicateKeysTest, JsonRepetitionsAreNotedAndTheLastOneWins) {
  // The body of kube-apiserver's field validation conformance test, plus
  // repetitions in a map, in a list element and three times over.
  constexpr char kBody[] = R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "my-dep", "labels": {"app": "a", "app": "nginx"}},
    "spec": {
      "unknownField": "foo", "replicas": 2, "replicas": 3,
      "template": {"spec": {"containers": [
        {"name": "x", "image": "i"},
        {"name": "y", "image": "i", "name": "z", "name": "nginx"}]}},
      "replicas": 4}})";
  auto decoded = DecodeBodyWithFindings("application/json", kBody);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(
      decoded->findings.duplicate_fields,
      (std::vector<std::string>{"metadata.labels.app", "spec.replicas",
                                "spec.template.spec.containers[1].name"}));
  EXPECT_TRUE(decoded->findings.yaml_error.empty());
  const json& obj = decoded->object;
  EXPECT_EQ(obj["spec"]["replicas"], 4);
  EXPECT_EQ(obj["metadata"]["labels"]["app"], "nginx");
  EXPECT_EQ(obj["spec"]["template"]["spec"]["containers"][1]["name"], "nginx");
  // Apart from the repetitions, the same value json::parse builds.
  EXPECT_EQ(obj, json::parse(kBody));
}

TEST(DuplicateKeysTest, JsonWithoutRepetitionsMatchesParse) {
  constexpr char kBody[] =
      R"([{"a":[1,2.5,-3,18446744073709551615,"s",true,false,null,{}],)"
      R"("b":{"c":{"d":[[]]}}},"x",{"a":1},{"a":2}])";
  std::vector<std::string> dups;
  auto v = ParseJsonFindingDuplicates(kBody, &dups);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, json::parse(kBody));
  EXPECT_TRUE(dups.empty());
  auto scalar = ParseJsonFindingDuplicates("  7 ", &dups);
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(*scalar, 7);
}

TEST(DuplicateKeysTest, MalformedJsonKeepsTheParserMessage) {
  std::vector<std::string> dups;
  auto bad = ParseJsonFindingDuplicates(R"({"a":1,"a":)", &dups);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kBadRequest);
  std::string expected;
  try {
    json parsed = json::parse(R"({"a":1,"a":)");
    static_cast<void>(parsed);
  } catch (const json::parse_error& e) {
    expected = std::string("error decoding request body: ") + e.what();
  }
  EXPECT_EQ(bad.status().message(), expected);
  EXPECT_FALSE(DecodeBodyWithFindings("application/json", "").ok());
}

TEST(DuplicateKeysTest, YamlRepetitionsInGoYamlWords) {
  // Nested repetitions are reported before the key that holds them, each on
  // the line of its repeated value.
  constexpr char kYaml[] =
      "a: 1\n"
      "b:\n"
      "  c: 1\n"
      "  c: 2\n"
      "a: 3\n"
      "list:\n"
      "- x: 1\n"
      "  x: 2\n"
      "true: 1\n"
      "true: 2\n";
  auto decoded = DecodeBodyWithFindings("application/yaml", kYaml);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded->findings.yaml_error,
            "yaml: unmarshal errors:\n"
            "  line 4: key \"c\" already set in map\n"
            "  line 5: key \"a\" already set in map\n"
            "  line 8: key \"x\" already set in map\n"
            "  line 10: key true already set in map");
  EXPECT_TRUE(decoded->findings.duplicate_fields.empty());
  EXPECT_EQ(decoded->object["a"], 3);
  EXPECT_EQ(decoded->object["b"]["c"], 2);

  EXPECT_EQ(YamlDuplicateKeyError("a: 1\nb: 2\n"), "");
  EXPECT_EQ(YamlDuplicateKeyError("a: [unclosed"), "");
}

TEST(DuplicateKeysTest, ProtobufAndOtherTypesCarryNoFindings) {
  auto pb = DecodeBodyWithFindings("application/vnd.kubernetes.protobuf",
                                   std::string("k8s\0", 4));
  ASSERT_FALSE(pb.ok());
  EXPECT_EQ(pb.status().code(), StatusCode::kBadRequest);
  auto other = DecodeBodyWithFindings("text/plain", "x");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kUnsupportedMediaType);
}

}  // namespace
}  // namespace kmock::server
