#include "fieldmanager/field_set.h"

#include <gtest/gtest.h>

namespace kmock::fieldmanager {
namespace {

using nlohmann::json;

TEST(FieldSetTest, RoundTripsFieldsV1) {
  json v1 = json::parse(R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},
    "f:spec":{"f:containers":{"k:{\"name\":\"c1\"}":{".":{},"f:image":{},"f:name":{}}}}})");
  auto set = FieldSet::FromFieldsV1(v1);
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_TRUE(set->Has({"f:metadata", "f:labels"}));
  EXPECT_TRUE(set->Has({"f:metadata", "f:labels", "f:app"}));
  EXPECT_FALSE(set->Has({"f:metadata"}));
  EXPECT_TRUE(
      set->Has({"f:spec", "f:containers", "k:{\"name\":\"c1\"}", "f:image"}));
  EXPECT_EQ(set->ToFieldsV1(), v1);
}

TEST(FieldSetTest, RejectsBadElements) {
  EXPECT_FALSE(FieldSet::FromFieldsV1(json::parse(R"({"x:a":{}})")).ok());
  EXPECT_FALSE(FieldSet::FromFieldsV1(json::parse(R"({"f:a":1})")).ok());
  EXPECT_FALSE(FieldSet::FromFieldsV1(json::parse(R"({"k:notjson":{}})")).ok());
}

TEST(FieldSetTest, SetAlgebra) {
  FieldSet a, b;
  a.Insert({"f:spec", "f:replicas"});
  a.Insert({"f:spec", "f:paused"});
  b.Insert({"f:spec", "f:replicas"});
  b.Insert({"f:metadata", "f:labels", "f:x"});
  EXPECT_EQ(a.Intersection(b).Paths(),
            (std::vector<Path>{{"f:spec", "f:replicas"}}));
  EXPECT_EQ(a.Difference(b).Paths(),
            (std::vector<Path>{{"f:spec", "f:paused"}}));
  EXPECT_EQ(a.Union(b).Paths().size(), 3u);
  EXPECT_TRUE(a.Difference(a).empty());
  FieldSet spec;
  spec.Insert({"f:spec"});
  EXPECT_EQ(a.Union(b).RecursiveDifference(spec).Paths(),
            (std::vector<Path>{{"f:metadata", "f:labels", "f:x"}}));
  EXPECT_FALSE(a.Difference(spec).empty());  // exact difference keeps children
}

// The in-place forms (on an rvalue) give what the copying forms give.
TEST(FieldSetTest, InPlaceOperationsMatchCopyingOnes) {
  const std::vector<Path> universe = {
      {"f:spec"},
      {"f:spec", "f:replicas"},
      {"f:spec", "f:template", "f:spec", "f:containers"},
      {"f:spec", "f:template", "f:metadata", "f:labels", "f:app"},
      {"f:metadata", "f:labels"},
      {"f:metadata", "f:labels", "f:app"},
      {"f:metadata", "f:annotations", "f:a"},
      {"f:status", "f:conditions", "k:{\"type\":\"Ready\"}", "f:status"},
      {"f:status"},
  };
  uint32_t seed = 12345;
  auto next = [&] {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) & 0x7fff;
  };
  auto random_set = [&] {
    FieldSet s;
    for (const Path& p : universe) {
      if (next() % 3 == 0) s.Insert(p);
    }
    return s;
  };
  for (int round = 0; round < 500; ++round) {
    const FieldSet a = random_set();
    const FieldSet b = random_set();
    FieldSet u = a, d = a, r = a;
    EXPECT_EQ(std::move(u).Union(b), a.Union(b)) << round;
    EXPECT_EQ(std::move(d).Difference(b), a.Difference(b)) << round;
    EXPECT_EQ(std::move(r).RecursiveDifference(b), a.RecursiveDifference(b))
        << round;
  }
}

TEST(FieldSetTest, IteratesMembersBeforeSubtrees) {
  FieldSet s;
  s.Insert({"f:spec", "f:template", "f:spec"});
  s.Insert({"f:spec", "f:replicas"});
  auto paths = s.Paths();
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0], (Path{"f:spec", "f:replicas"}));
}

// SharesMemberWith reads stored fieldsV1 in place and must agree with
// decoding it and intersecting.
TEST(FieldSetTest, SharesMemberWithAgreesWithIntersection) {
  const json stored = json::parse(R"({"f:metadata":{"f:labels":{".":{},
    "f:app":{}}},"f:spec":{"f:replicas":{},"f:template":{"f:spec":{}}}})");
  auto decoded = FieldSet::FromFieldsV1(stored);
  ASSERT_TRUE(decoded.ok());
  const std::vector<Path> probes = {
      {"f:spec", "f:replicas"},            // a leaf member
      {"f:metadata", "f:labels"},          // a member with children (".")
      {"f:metadata", "f:labels", "f:x"},   // under a member, not one
      {"f:metadata"},                      // a node that is not a member
      {"f:spec", "f:template", "f:spec"},  // an empty leaf
      {"f:spec", "f:paused"},              // absent
      {"f:status"},                        // absent subtree
  };
  for (const Path& p : probes) {
    FieldSet s;
    s.Insert(p);
    EXPECT_EQ(s.SharesMemberWith(stored), !s.Intersection(*decoded).empty())
        << PathString(p);
  }
  FieldSet none;
  EXPECT_FALSE(none.SharesMemberWith(stored));
  FieldSet some;
  some.Insert({"f:spec", "f:replicas"});
  EXPECT_FALSE(some.SharesMemberWith(json()));
}

TEST(FieldSetTest, PathStrings) {
  EXPECT_EQ(PathString({"f:spec", "f:containers", "k:{\"name\":\"nginx\"}",
                        "f:image"}),
            ".spec.containers[name=\"nginx\"].image");
  EXPECT_EQ(
      PathString({"f:ports", "k:{\"containerPort\":80,\"protocol\":\"TCP\"}"}),
      ".ports[containerPort=80,protocol=\"TCP\"]");
  EXPECT_EQ(PathString({"f:metadata", "f:finalizers", "v:\"a\""}),
            ".metadata.finalizers[=\"a\"]");
}

}  // namespace
}  // namespace kmock::fieldmanager
