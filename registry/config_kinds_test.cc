// ConfigMaps and Secrets through the registry: kube-apiserver's 422s for
// bad keys, missing typed keys, immutable data and a changed type, with
// nothing stored; a Secret's stringData folded into data.
#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "registry/registry.h"
#include "registry/test_registry.h"

namespace kmock::registry {
namespace {

using nlohmann::json;

class ConfigKindsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage_ = registry::testing::OpenMemoryStore();
    ASSERT_NE(storage_, nullptr);
    registry_ = std::make_unique<Registry>(storage_.get(), &clock_, &rng_);
    configmaps_ = api::testing::BuiltinCatalog().Find("", "v1", "configmaps");
    secrets_ = api::testing::BuiltinCatalog().Find("", "v1", "secrets");
    ASSERT_NE(configmaps_, nullptr);
    ASSERT_NE(secrets_, nullptr);
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "default").ok());
  }

  // The message of a refused write, or "ok".
  std::string Create(const api::ResourceInfo* res, const json& obj) {
    auto r = registry_->Create(*res, "default", obj, {});
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
    auto r = registry_->Get(*res, "default", name);
    return r.ok() ? *r : json();
  }

  FakeClock clock_{TimePoint(std::chrono::seconds(1'800'000'000))};
  Rng rng_{1};
  std::unique_ptr<store::Storage> storage_;
  std::unique_ptr<Registry> registry_;
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

TEST_F(ConfigKindsTest, ConfigMapKeysAreChecked) {
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

TEST_F(ConfigKindsTest, ConfigMapOverOneMebibyteIsRefused) {
  std::string big(1024 * 1024 + 1, 'x');
  std::string msg = Create(configmaps_, ConfigMap("big", {{"blob", big}}));
  EXPECT_NE(msg.find("Too long: may not be more than 1048576 bytes"),
            std::string::npos)
      << msg;
}

TEST_F(ConfigKindsTest, ImmutableConfigMapKeepsItsDataAndFlag) {
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

TEST_F(ConfigKindsTest, SecretTypesNeedTheirKeys) {
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

TEST_F(ConfigKindsTest, SecretTypeCannotChange) {
  ASSERT_EQ(Create(secrets_, Secret("s", "Opaque", {{"a", "MQ=="}})), "ok");
  json s = Get(secrets_, "s");
  s["type"] = "kubernetes.io/basic-auth";
  s["data"]["username"] = "YWRtaW4=";
  EXPECT_EQ(Update(secrets_, s),
            "Secret \"s\" is invalid: type: Invalid value: "
            "\"kubernetes.io/basic-auth\": field is immutable");
}

TEST_F(ConfigKindsTest, StringDataIsFoldedIntoDataAndNotKept) {
  json s = Secret("sd", "", {{"pw", "czNjcmV0"}});
  s["stringData"] = {{"user", "admin"}, {"pw", "override"}};
  ASSERT_EQ(Create(secrets_, s), "ok");
  json stored = Get(secrets_, "sd");
  EXPECT_FALSE(stored.contains("stringData"));
  EXPECT_EQ(stored["data"],
            json({{"user", "YWRtaW4="}, {"pw", "b3ZlcnJpZGU="}}));
}

}  // namespace
}  // namespace kmock::registry
