// DefaultIngressClass admission: an Ingress without a class gets the
// default IngressClass (the newest of several), one that names a class or
// carries the older annotation keeps what it says, and without a default
// nothing is filled in.
#include "registry/admission/default_ingress_class.h"

#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "registry/registry.h"
#include "registry/test_registry.h"

namespace kmock::registry {
namespace {

using nlohmann::json;

class DefaultIngressClassTest : public registry::testing::RegistryFixture {
 protected:
  void SetUp() override {
    RegistryFixture::SetUp();
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "default").ok());
    ingresses_ = api::testing::BuiltinCatalog().Find("networking.k8s.io", "v1",
                                                     "ingresses");
    classes_ = api::testing::BuiltinCatalog().Find("networking.k8s.io", "v1",
                                                   "ingressclasses");
  }
  void AddClass(const std::string& name, bool is_default) {
    json c = {{"metadata", {{"name", name}}},
              {"spec", {{"controller", "example.com/" + name}}}};
    if (is_default) {
      c["metadata"]["annotations"]
       ["ingressclass.kubernetes.io/is-default-class"] = "true";
    }
    auto r = registry_->Create(*classes_, "", c, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // The created Ingress's spec.
  json CreateIngress(const std::string& name, json spec,
                     json annotations = json::object()) {
    spec["defaultBackend"] = {
        {"service", {{"name", "web"}, {"port", {{"number", 80}}}}}};
    json obj = {{"metadata", {{"name", name}}}, {"spec", spec}};
    if (!annotations.empty()) obj["metadata"]["annotations"] = annotations;
    auto r = registry_->Create(*ingresses_, "default", obj, {});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->object["spec"] : json();
  }

  const api::ResourceInfo* ingresses_ = nullptr;
  const api::ResourceInfo* classes_ = nullptr;
};

TEST_F(DefaultIngressClassTest, FillsInOnlyAnAbsentClass) {
  EXPECT_FALSE(
      CreateIngress("none", json::object()).contains("ingressClassName"));
  AddClass("traefik", false);
  EXPECT_FALSE(
      CreateIngress("no-default", json::object()).contains("ingressClassName"));
  AddClass("nginx", true);
  EXPECT_EQ(CreateIngress("plain", json::object())["ingressClassName"],
            "nginx");
  EXPECT_EQ(CreateIngress(
                "named", {{"ingressClassName", "traefik"}})["ingressClassName"],
            "traefik");
  EXPECT_FALSE(CreateIngress("annotated", json::object(),
                             {{"kubernetes.io/ingress.class", "traefik"}})
                   .contains("ingressClassName"));
}

TEST_F(DefaultIngressClassTest, TheNewestOfSeveralDefaultsWins) {
  AddClass("nginx", true);
  clock_.Advance(std::chrono::seconds(5));
  AddClass("haproxy", true);
  EXPECT_EQ(CreateIngress("plain", json::object())["ingressClassName"],
            "haproxy");
}

}  // namespace
}  // namespace kmock::registry
