#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "api/kinds/lease.h"
#include "api/kinds/namespace.h"

namespace kmock::api::kinds {
namespace {

TimePoint At(const std::string& ts) {
  TimePoint t;
  EXPECT_TRUE(ParseRfc3339(ts, &t));
  return t;
}

TEST(NamespaceTest, CreateDefaults) {
  json ns = {{"metadata", {{"name", "team-a"}}}};
  NamespaceStrategy()->PrepareForCreate(ns);
  NamespaceStrategy()->Default(ns);
  EXPECT_EQ(ns["spec"]["finalizers"], json({"kubernetes"}));
  EXPECT_EQ(ns["status"]["phase"], "Active");
  EXPECT_EQ(ns["metadata"]["labels"]["kubernetes.io/metadata.name"], "team-a");
  ns["metadata"]["creationTimestamp"] = "2024-05-01T00:00:00Z";
  EXPECT_EQ(testing::RowOf("", "namespaces", ns, At("2024-05-01T00:00:42Z")),
            (std::vector<json>{"team-a", "Active", "42s"}));
  EXPECT_EQ(NamespaceSelectableFields()[0].value(ns), "Active");
}

TEST(NamespaceTest, UpdateKeepsFinalizersAndStatus) {
  json old = {{"metadata", {{"name", "a"}}},
              {"spec", {{"finalizers", {"kubernetes"}}}},
              {"status", {{"phase", "Terminating"}}}};
  json upd = old;
  upd["spec"]["finalizers"] = json::array();
  upd["status"]["phase"] = "Active";
  NamespaceStrategy()->PrepareForUpdate(upd, old);
  EXPECT_EQ(upd, old);

  json fin = old;
  fin["spec"]["finalizers"] = json::array();
  fin["status"]["phase"] = "Active";
  NamespaceFinalizeStrategy()->PrepareForUpdate(fin, old);
  EXPECT_EQ(fin["spec"]["finalizers"], json::array());
  EXPECT_EQ(fin["status"]["phase"], "Terminating");
}

TEST(NamespaceTest, FinalizerNames) {
  json ns = {{"metadata", {{"name", "a"}}},
             {"spec", {{"finalizers", {"kubernetes", "bogus"}}}}};
  FieldErrors errs;
  NamespaceStrategy()->Validate(ns, &errs);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs.causes()[0].field, "spec.finalizers[1]");
}

TEST(LeaseTest, CellsAndValidation) {
  json lease = {
      {"metadata",
       {{"name", "kube-scheduler"},
        {"creationTimestamp", "2024-05-01T00:00:00Z"}}},
      {"spec",
       {{"holderIdentity", "node-1_abc"}, {"leaseDurationSeconds", 0}}}};
  EXPECT_EQ(testing::RowOf("coordination.k8s.io", "leases", lease,
                           At("2024-05-01T00:05:00Z")),
            (std::vector<json>{"kube-scheduler", "node-1_abc", "5m"}));
  FieldErrors errs;
  LeaseStrategy()->Validate(lease, &errs);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs.causes()[0].message,
            "Invalid value: 0: must be greater than 0");
  lease["spec"].erase("holderIdentity");
  EXPECT_EQ(testing::RowOf("coordination.k8s.io", "leases", lease,
                           At("2024-05-01T00:05:00Z"))[1],
            "");
}

}  // namespace
}  // namespace kmock::api::kinds
