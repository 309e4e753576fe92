#include "api/kinds/access_review.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "api/builtin_catalog.h"
#include "api/protobuf_decode.h"
#include "api/schema.h"

namespace kmock::api::kinds {
namespace {

UserInfo Admin() {
  return {"kubernetes-admin", "", {"system:masters", "system:authenticated"}};
}
UserInfo Someone() { return {"jane", "u-1", {"system:authenticated"}}; }

TEST(AuthorizeTest, MastersMayDoEverythingWithoutAReason) {
  AccessAttributes a;
  a.verb = "delete";
  a.resource = "nodes";
  AccessDecision d = Authorize(Admin(), a);
  EXPECT_TRUE(d.allowed);
  EXPECT_FALSE(d.denied);
  EXPECT_EQ(d.reason, "");
  EXPECT_EQ(d.evaluation_error, "");

  AccessAttributes path;
  path.resource_request = false;
  path.verb = "get";
  path.path = "/metrics";
  EXPECT_TRUE(Authorize(Admin(), path).allowed);
}

TEST(AuthorizeTest, EveryoneElseIsAllowedUntilThereIsAnAuthorizer) {
  AccessAttributes a;
  a.verb = "*";
  a.group = "*";
  a.resource = "*";
  AccessDecision d = Authorize(Someone(), a);
  EXPECT_TRUE(d.allowed);
  EXPECT_FALSE(d.denied);
}

TEST(RulesForTest, AdminGetsClusterAdminAndTheBasicRules) {
  RuleSet rules = RulesFor(Admin(), "default");
  EXPECT_FALSE(rules.incomplete);
  ASSERT_EQ(rules.resource_rules.size(), 3u);
  EXPECT_EQ(rules.resource_rules[0].verbs, std::vector<std::string>{"*"});
  EXPECT_EQ(rules.resource_rules[0].api_groups, std::vector<std::string>{"*"});
  EXPECT_EQ(rules.resource_rules[0].resources, std::vector<std::string>{"*"});
  EXPECT_EQ(rules.resource_rules[1].resources,
            std::vector<std::string>{"selfsubjectreviews"});
  EXPECT_EQ(rules.resource_rules[2].resources,
            (std::vector<std::string>{"selfsubjectaccessreviews",
                                      "selfsubjectrulesreviews"}));
  ASSERT_EQ(rules.non_resource_rules.size(), 3u);
  EXPECT_EQ(rules.non_resource_rules[0].non_resource_urls,
            std::vector<std::string>{"*"});
  const auto& discovery = rules.non_resource_rules[1].non_resource_urls;
  for (const char* url : {"/api", "/api/*", "/apis", "/apis/*", "/openapi",
                          "/openapi/*", "/version", "/healthz"}) {
    EXPECT_NE(std::find(discovery.begin(), discovery.end(), url),
              discovery.end())
        << url;
  }
}

TEST(SelfSubjectAccessReviewTest, AnswersWithTheRequestAndAStatus) {
  json req = json::parse(R"({"apiVersion":"authorization.k8s.io/v1",
      "kind":"SelfSubjectAccessReview","metadata":{"creationTimestamp":null},
      "spec":{"resourceAttributes":{"namespace":"default","verb":"get",
      "resource":"pods"}},"status":{"allowed":false}})");
  auto out = CreateSelfSubjectAccessReview(req, Admin());
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, json::parse(R"({"apiVersion":"authorization.k8s.io/v1",
      "kind":"SelfSubjectAccessReview","metadata":{"creationTimestamp":null},
      "spec":{"resourceAttributes":{"namespace":"default","verb":"get",
      "resource":"pods"}},"status":{"allowed":true}})"));
}

TEST(SelfSubjectAccessReviewTest, NonResourceRequestAndMissingMetadata) {
  json req = json::parse(
      R"({"spec":{"nonResourceAttributes":{"path":"/logs","verb":"get"}}})");
  auto attrs = AttributesFromReview(req);
  ASSERT_TRUE(attrs.ok());
  EXPECT_FALSE(attrs->resource_request);
  EXPECT_EQ(attrs->path, "/logs");
  EXPECT_EQ(attrs->verb, "get");
  auto out = CreateSelfSubjectAccessReview(req, Someone());
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE((*out)["metadata"]["creationTimestamp"].is_null());
  EXPECT_EQ((*out)["status"], json::parse(R"({"allowed":true})"));
}

TEST(SelfSubjectAccessReviewTest, ResourceAttributesAreRead) {
  json req = json::parse(R"({"spec":{"resourceAttributes":{"namespace":"ns",
      "verb":"update","group":"apps","version":"v1","resource":"deployments",
      "subresource":"scale","name":"web"}}})");
  auto a = AttributesFromReview(req);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->resource_request);
  EXPECT_EQ(a->ns, "ns");
  EXPECT_EQ(a->verb, "update");
  EXPECT_EQ(a->group, "apps");
  EXPECT_EQ(a->version, "v1");
  EXPECT_EQ(a->resource, "deployments");
  EXPECT_EQ(a->subresource, "scale");
  EXPECT_EQ(a->name, "web");
}

TEST(SelfSubjectAccessReviewTest, NeitherOrBothAttributeSetsAreInvalid) {
  auto none =
      CreateSelfSubjectAccessReview(json::parse(R"({"spec":{}})"), Admin());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(none.status().message(),
            "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: "
            "spec.resourceAttributes: Invalid value: \"null\": exactly one of "
            "nonResourceAttributes or resourceAttributes must be specified");

  auto both = CreateSelfSubjectAccessReview(
      json::parse(R"({"spec":{"resourceAttributes":{"verb":"get"},
          "nonResourceAttributes":{"path":"/"}}})"),
      Admin());
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().code(), StatusCode::kInvalid);
  EXPECT_NE(
      both.status().message().find("spec.nonResourceAttributes: Invalid value"),
      std::string::npos);
}

TEST(SubjectAccessReviewTest, AsksAboutTheSpecsUser) {
  json sar = json::parse(R"({"apiVersion":"authorization.k8s.io/v1",
      "kind":"SubjectAccessReview","metadata":{},
      "spec":{"user":"jane","groups":["dev"],
              "resourceAttributes":{"verb":"delete","resource":"pods",
                                    "namespace":"default"}}})");
  auto out = CreateSubjectAccessReview(
      sar, UserInfo{"kubernetes-admin", "", {kSystemMasters}});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)["status"], json::parse(R"({"allowed":true})"));
  EXPECT_EQ((*out)["spec"], sar["spec"]);

  sar["spec"].erase("user");
  sar["spec"].erase("groups");
  auto nobody = CreateSubjectAccessReview(sar, UserInfo{});
  ASSERT_FALSE(nobody.ok());
  EXPECT_EQ(nobody.status().message(),
            "SubjectAccessReview.authorization.k8s.io \"\" is invalid: "
            "spec.user: Invalid value: \"\": at least one of user or group "
            "must be specified");
}

TEST(LocalSubjectAccessReviewTest, StaysInItsNamespace) {
  json lsar = json::parse(R"({"metadata":{"namespace":"team-a"},
      "spec":{"user":"jane",
              "resourceAttributes":{"verb":"get","resource":"pods",
                                    "namespace":"team-b"}}})");
  auto out = CreateLocalSubjectAccessReview(lsar, UserInfo{});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find(
                "spec.resourceAttributes.namespace: Invalid value: "
                "\"team-b\": must match metadata.namespace"),
            std::string::npos);
  lsar["spec"]["resourceAttributes"]["namespace"] = "team-a";
  out = CreateLocalSubjectAccessReview(lsar, UserInfo{});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)["status"]["allowed"], true);
}

TEST(SelfSubjectRulesReviewTest, ListsTheRulesAsJson) {
  json req = json::parse(R"({"apiVersion":"authorization.k8s.io/v1",
      "kind":"SelfSubjectRulesReview","metadata":{"creationTimestamp":null},
      "spec":{"namespace":"default"},"status":{"resourceRules":null,
      "nonResourceRules":null,"incomplete":false}})");
  auto out = CreateSelfSubjectRulesReview(req, Admin());
  ASSERT_TRUE(out.ok()) << out.status().message();
  const json& st = (*out)["status"];
  EXPECT_EQ(st["incomplete"], false);
  EXPECT_FALSE(st.contains("evaluationError"));
  EXPECT_EQ(
      st["resourceRules"][0],
      json::parse(R"({"verbs":["*"],"apiGroups":["*"],"resources":["*"]})"));
  EXPECT_EQ(st["resourceRules"][1], json::parse(R"({"verbs":["create"],
                "apiGroups":["authentication.k8s.io"],
                "resources":["selfsubjectreviews"]})"));
  EXPECT_EQ(st["nonResourceRules"][0],
            json::parse(R"({"verbs":["*"],"nonResourceURLs":["*"]})"));
  EXPECT_EQ(st["nonResourceRules"][2],
            json::parse(R"({"verbs":["get"],"nonResourceURLs":["/healthz",
                "/livez","/readyz","/version","/version/"]})"));
  EXPECT_EQ((*out)["spec"], json::parse(R"({"namespace":"default"})"));
  EXPECT_TRUE((*out)["metadata"]["creationTimestamp"].is_null());
}

TEST(SelfSubjectRulesReviewTest, NamespaceIsRequired) {
  auto out =
      CreateSelfSubjectRulesReview(json::parse(R"({"spec":{}})"), Admin());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(out.status().message(), "no namespace on request");
}

TEST(SelfSubjectReviewTest, TellsTheCallerWhoItIs) {
  json req = json::parse(R"({"apiVersion":"authentication.k8s.io/v1",
      "kind":"SelfSubjectReview","metadata":{"creationTimestamp":null},
      "status":{}})");
  auto out = CreateSelfSubjectReview(req, Admin());
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, json::parse(R"({"apiVersion":"authentication.k8s.io/v1",
      "kind":"SelfSubjectReview","metadata":{"creationTimestamp":null},
      "status":{"userInfo":{"username":"kubernetes-admin",
      "groups":["system:masters","system:authenticated"]}}})"));

  auto jane = CreateSelfSubjectReview(json::object(), Someone());
  ASSERT_TRUE(jane.ok());
  EXPECT_EQ((*jane)["status"]["userInfo"]["uid"], "u-1");
}

TEST(AccessReviewCatalogTest, CreateOnlyClusterWideAndComputed) {
  const Catalog& c = testing::BuiltinCatalog();
  struct Want {
    const char *group, *version, *plural, *kind;
  };
  for (const Want& w : {
           Want{"authorization.k8s.io", "v1", "selfsubjectaccessreviews",
                "SelfSubjectAccessReview"},
           Want{"authorization.k8s.io", "v1", "selfsubjectrulesreviews",
                "SelfSubjectRulesReview"},
           Want{"authentication.k8s.io", "v1", "selfsubjectreviews",
                "SelfSubjectReview"},
           Want{"authentication.k8s.io", "v1beta1", "selfsubjectreviews",
                "SelfSubjectReview"},
       }) {
    SCOPED_TRACE(std::string(w.plural) + "/" + w.version);
    const ResourceInfo* r = c.Find(w.group, w.version, w.plural);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->kind, w.kind);
    EXPECT_FALSE(r->namespaced);
    EXPECT_EQ(r->verbs, std::vector<std::string>{"create"});
    EXPECT_TRUE(r->key_prefix.empty());
    EXPECT_TRUE(static_cast<bool>(r->virtual_create));
    EXPECT_NE(Schema::Builtin().Find(r->schema_type), nullptr)
        << r->schema_type;
  }
}

// A tiny protobuf writer for building request bodies by hand.
class Pb {
 public:
  Pb& Varint(int field, uint64_t v) {
    Key(field, 0);
    Put(v);
    return *this;
  }
  Pb& Str(int field, std::string_view s) {
    Key(field, 2);
    Put(s.size());
    out_.append(s);
    return *this;
  }
  Pb& Msg(int field, const Pb& m) { return Str(field, m.out_); }
  const std::string& bytes() const { return out_; }

 private:
  void Key(int field, int wire) {
    Put((static_cast<uint64_t>(field) << 3) | wire);
  }
  void Put(uint64_t v) {
    while (v >= 0x80) {
      out_ += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out_ += static_cast<char>(v);
  }
  std::string out_;
};

std::string Body(std::string_view api_version, std::string_view kind,
                 const Pb& raw) {
  Pb unknown;
  unknown.Msg(1, Pb().Str(1, api_version).Str(2, kind))
      .Msg(2, raw)
      .Str(3, "")
      .Str(4, "");
  return std::string(kProtobufMagic) + unknown.bytes();
}

// ObjectMeta as a protobuf writer sends it: every scalar, even empty.
Pb EmptyMeta() {
  Pb m;
  m.Str(1, "").Str(2, "").Str(3, "").Str(4, "").Str(5, "").Str(6, "");
  m.Varint(7, 0).Msg(8, Pb());
  return m;
}

const Type* Root(const char* name) { return Schema::Builtin().Find(name); }

// `kubectl auth can-i list deployments.apps --subresource=scale -n ns` as
// kubectl 1.32+ sends it: every string of ResourceAttributes, in order.
TEST(AccessReviewProtobufTest, SelfSubjectAccessReviewDecodes) {
  Pb attrs;
  attrs.Str(1, "ns").Str(2, "list").Str(3, "apps").Str(4, "").Str(
      5, "deployments");
  attrs.Str(6, "scale").Str(7, "web");
  Pb ssar;
  ssar.Msg(1, EmptyMeta())
      .Msg(2, Pb().Msg(1, attrs))
      .Msg(3, Pb().Varint(1, 0).Str(2, "").Str(3, "").Varint(4, 0));
  auto out = DecodeProtobufObject(
      Body("authorization.k8s.io/v1", "SelfSubjectAccessReview", ssar),
      Schema::Builtin(),
      Root("io.k8s.api.authorization.v1.SelfSubjectAccessReview"));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, json::parse(R"({"apiVersion":"authorization.k8s.io/v1",
      "kind":"SelfSubjectAccessReview","metadata":{},
      "spec":{"resourceAttributes":{"namespace":"ns","verb":"list",
      "group":"apps","resource":"deployments","subresource":"scale",
      "name":"web"}},"status":{"allowed":false}})"));

  auto answer = CreateSelfSubjectAccessReview(*out, Admin());
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ((*answer)["status"], json::parse(R"({"allowed":true})"));
}

TEST(AccessReviewProtobufTest, NonResourceAttributesAndRulesReviewDecode) {
  Pb ssar;
  ssar.Msg(1, EmptyMeta())
      .Msg(2, Pb().Msg(2, Pb().Str(1, "/healthz").Str(2, "get")));
  auto out = DecodeProtobufObject(
      Body("authorization.k8s.io/v1", "SelfSubjectAccessReview", ssar),
      Schema::Builtin(),
      Root("io.k8s.api.authorization.v1.SelfSubjectAccessReview"));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)["spec"], json::parse(R"({"nonResourceAttributes":
      {"path":"/healthz","verb":"get"}})"));

  Pb ssrr;
  ssrr.Msg(1, EmptyMeta())
      .Msg(2, Pb().Str(1, "kube-system"))
      .Msg(3, Pb().Varint(3, 1).Str(4, "partial"));
  auto rules = DecodeProtobufObject(
      Body("authorization.k8s.io/v1", "SelfSubjectRulesReview", ssrr),
      Schema::Builtin(),
      Root("io.k8s.api.authorization.v1.SelfSubjectRulesReview"));
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  EXPECT_EQ((*rules)["spec"], json::parse(R"({"namespace":"kube-system"})"));
  EXPECT_EQ((*rules)["status"]["incomplete"], true);
  EXPECT_EQ((*rules)["status"]["evaluationError"], "partial");
}

TEST(AccessReviewProtobufTest, SelfSubjectReviewDecodesInBothVersions) {
  Pb info;
  info.Str(1, "bob").Str(2, "u-9").Str(3, "g1").Str(3, "g2");
  Pb ssr;
  ssr.Msg(1, EmptyMeta()).Msg(2, Pb().Msg(1, info));
  for (const char* version : {"v1", "v1beta1"}) {
    SCOPED_TRACE(version);
    std::string root = std::string("io.k8s.api.authentication.") + version +
                       ".SelfSubjectReview";
    auto out = DecodeProtobufObject(
        Body(std::string("authentication.k8s.io/") + version,
             "SelfSubjectReview", ssr),
        Schema::Builtin(), Root(root.c_str()));
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ((*out)["status"], json::parse(R"({"userInfo":{"username":"bob",
        "uid":"u-9","groups":["g1","g2"]}})"));
  }
}

}  // namespace
}  // namespace kmock::api::kinds
