#include <gtest/gtest.h>

#include <algorithm>

#include "api/builtin_catalog.h"
#include "api/resource.h"

namespace kmock::api {
namespace {

TEST(CatalogTest, CoreResources) {
  const Catalog& c = testing::BuiltinCatalog();
  const ResourceInfo* pods = c.Find("", "v1", "pods");
  ASSERT_NE(pods, nullptr);
  EXPECT_EQ(pods->kind, "Pod");
  EXPECT_EQ(pods->short_names, std::vector<std::string>{"po"});
  EXPECT_EQ(pods->categories, std::vector<std::string>{"all"});
  EXPECT_EQ(pods->key_prefix, "/registry/pods/");
  EXPECT_TRUE(pods->HasVerb("deletecollection"));
  ASSERT_NE(pods->FindSubresource("binding"), nullptr);
  EXPECT_EQ(pods->FindSubresource("binding")->kind, "Binding");
  EXPECT_NE(pods->status_strategy, nullptr);
  EXPECT_EQ(pods->QualifiedName(), "pods");

  const ResourceInfo* nodes = c.FindByKind("", "v1", "Node");
  ASSERT_NE(nodes, nullptr);
  EXPECT_FALSE(nodes->namespaced);
  EXPECT_EQ(nodes->key_prefix, "/registry/minions/");
  EXPECT_EQ(nodes->short_names, std::vector<std::string>{"no"});

  const ResourceInfo* ns = c.Find("", "v1", "namespaces");
  ASSERT_NE(ns, nullptr);
  EXPECT_FALSE(ns->HasVerb("deletecollection"));
  EXPECT_EQ(ns->name_rule, "label");
  EXPECT_NE(ns->FindSubresource("finalize"), nullptr);

  const ResourceInfo* bindings = c.Find("", "v1", "bindings");
  ASSERT_NE(bindings, nullptr);
  EXPECT_EQ(bindings->verbs, std::vector<std::string>{"create"});
}

TEST(CatalogTest, EventsShareStorage) {
  const Catalog& c = testing::BuiltinCatalog();
  const ResourceInfo* core = c.Find("", "v1", "events");
  const ResourceInfo* ev = c.Find("events.k8s.io", "v1", "events");
  ASSERT_NE(core, nullptr);
  ASSERT_NE(ev, nullptr);
  EXPECT_EQ(core->key_prefix, ev->key_prefix);
  EXPECT_FALSE(static_cast<bool>(core->from_storage));
  ASSERT_TRUE(static_cast<bool>(ev->from_storage));
  EXPECT_EQ(ev->ApiVersion(), "events.k8s.io/v1");
  EXPECT_EQ(ev->QualifiedName(), "events.events.k8s.io");
  EXPECT_EQ(ev->schema_type, "io.k8s.api.events.v1.Event");
}

TEST(CatalogTest, EachVersionServesWhatItsRealServerServes) {
  auto served = [](int minor, const char* group, const char* version,
                   const char* plural) {
    auto c = LoadBuiltinCatalog(Schema::Builtin(), minor);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() && (*c)->Find(group, version, plural) != nullptr;
  };
  EXPECT_TRUE(served(33, "networking.k8s.io", "v1", "ipaddresses"));
  EXPECT_FALSE(served(32, "networking.k8s.io", "v1", "servicecidrs"));
  EXPECT_TRUE(served(30, "admissionregistration.k8s.io", "v1",
                     "validatingadmissionpolicies"));
  EXPECT_FALSE(served(29, "admissionregistration.k8s.io", "v1",
                      "validatingadmissionpolicybindings"));
  EXPECT_TRUE(served(28, "authentication.k8s.io", "v1", "selfsubjectreviews"));
  EXPECT_FALSE(served(27, "authentication.k8s.io", "v1", "selfsubjectreviews"));
  EXPECT_TRUE(
      served(27, "authentication.k8s.io", "v1beta1", "selfsubjectreviews"));
  EXPECT_TRUE(served(27, "", "v1", "pods"));
  // API Priority and Fairness: v1beta2 to 1.28, v1beta3 to 1.31, v1 from
  // 1.29.
  constexpr char kFlow[] = "flowcontrol.apiserver.k8s.io";
  EXPECT_TRUE(served(28, kFlow, "v1beta2", "flowschemas"));
  EXPECT_FALSE(served(29, kFlow, "v1beta2", "prioritylevelconfigurations"));
  EXPECT_TRUE(served(27, kFlow, "v1beta3", "prioritylevelconfigurations"));
  EXPECT_TRUE(served(31, kFlow, "v1beta3", "flowschemas"));
  EXPECT_FALSE(served(32, kFlow, "v1beta3", "flowschemas"));
  EXPECT_FALSE(served(28, kFlow, "v1", "flowschemas"));
  EXPECT_TRUE(served(29, kFlow, "v1", "prioritylevelconfigurations"));
  // The default is the newest version.
  EXPECT_NE(
      testing::BuiltinCatalog().Find("networking.k8s.io", "v1", "servicecidrs"),
      nullptr);
}

TEST(CatalogTest, DeprecationWarningsFromTheReleaseThatMadeThem) {
  auto warning = [](int minor, const char* group, const char* version,
                    const char* plural) {
    auto c = LoadBuiltinCatalog(Schema::Builtin(), minor);
    if (!c.ok()) return std::string("not loaded");
    const ResourceInfo* r = (*c)->Find(group, version, plural);
    return r == nullptr ? std::string("not served") : r->warning;
  };
  EXPECT_EQ(warning(32, "", "v1", "endpoints"), "");
  EXPECT_EQ(warning(33, "", "v1", "endpoints"),
            "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 "
            "EndpointSlice");
  EXPECT_EQ(
      warning(28, "flowcontrol.apiserver.k8s.io", "v1beta3", "flowschemas"),
      "");
  EXPECT_EQ(
      warning(29, "flowcontrol.apiserver.k8s.io", "v1beta3", "flowschemas"),
      "flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema is deprecated in "
      "v1.29+, unavailable in v1.32+; use "
      "flowcontrol.apiserver.k8s.io/v1 FlowSchema");
  EXPECT_EQ(warning(27, "", "v1", "componentstatuses"),
            "v1 ComponentStatus is deprecated in v1.19+");
}

TEST(CatalogTest, EveryResourceIsComplete) {
  for (const ResourceInfo* r : testing::BuiltinCatalog().resources()) {
    SCOPED_TRACE(r->QualifiedName());
    EXPECT_FALSE(r->kind.empty());
    EXPECT_EQ(r->list_kind, r->kind + "List");
    EXPECT_NE(r->strategy, nullptr);
    EXPECT_TRUE(std::is_sorted(r->verbs.begin(), r->verbs.end()));
    EXPECT_EQ(r->status_strategy != nullptr,
              r->FindSubresource("status") != nullptr);
    ASSERT_TRUE(static_cast<bool>(r->cells));
    EXPECT_EQ(r->columns.front().name == "Name" ||
                  r->columns.front().name == "Last Seen",
              true);
    // What is listed is stored, or computed on every read.
    if (r->HasVerb("list")) {
      EXPECT_NE(r->key_prefix.empty(), !r->virtual_items);
    }
    EXPECT_FALSE(r->virtual_items && r->virtual_create);
  }
}

TEST(CatalogTest, GroupVersionsInOrder) {
  auto gvs = testing::BuiltinCatalog().GroupVersions();
  using GV = std::pair<std::string, std::string>;
  ASSERT_GE(gvs.size(), 20u);
  EXPECT_EQ(gvs[0], (GV{"", "v1"}));
  EXPECT_TRUE(std::is_sorted(gvs.begin(), gvs.end()));
  for (const GV& want :
       {GV{"apps", "v1"}, GV{"authentication.k8s.io", "v1beta1"},
        GV{"autoscaling", "v1"}, GV{"autoscaling", "v2"}, GV{"batch", "v1"},
        GV{"rbac.authorization.k8s.io", "v1"}, GV{"storage.k8s.io", "v1"},
        GV{"flowcontrol.apiserver.k8s.io", "v1"}}) {
    EXPECT_NE(std::find(gvs.begin(), gvs.end(), want), gvs.end()) << want.first;
  }
}

TEST(CatalogTest, LeasesAndUnknown) {
  const ResourceInfo* l =
      testing::BuiltinCatalog().Find("coordination.k8s.io", "v1", "leases");
  ASSERT_NE(l, nullptr);
  EXPECT_TRUE(l->namespaced);
  EXPECT_TRUE(l->short_names.empty());
  EXPECT_EQ(testing::BuiltinCatalog().Find("", "v1", "widgets"), nullptr);
}

}  // namespace
}  // namespace kmock::api
