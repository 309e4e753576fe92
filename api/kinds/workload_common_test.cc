#include "api/kinds/workload_common.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace kmock::api::kinds {
namespace {

json Template(const std::string& image) {
  return {{"metadata", {{"labels", {{"app", "web"}}}}},
          {"spec",
           {{"containers", {{{"name", "nginx"}, {"image", image}}}},
            {"restartPolicy", "Always"}}}};
}

TEST(LabelSelectorTest, StringForm) {
  json sel = {{"matchLabels", {{"b", "2"}, {"a", "1"}}},
              {"matchExpressions",
               {{{"key", "c"}, {"operator", "In"}, {"values", {"y", "x"}}},
                {{"key", "d"}, {"operator", "DoesNotExist"}},
                {{"key", "aa"}, {"operator", "NotIn"}, {"values", {"z"}}},
                {{"key", "e"}, {"operator", "Exists"}}}}};
  EXPECT_EQ(LabelSelectorString(sel), "a=1,aa notin (z),b=2,c in (x,y),!d,e");
  EXPECT_EQ(LabelSelectorString(json()), "");
  EXPECT_EQ(LabelSelectorString(json::object()), "");
}

TEST(LabelSelectorTest, Matching) {
  json labels = {{"app", "web"}, {"tier", "front"}};
  EXPECT_TRUE(LabelSelectorMatches(json::object(), labels));
  EXPECT_FALSE(LabelSelectorMatches(json(), labels));
  EXPECT_TRUE(
      LabelSelectorMatches({{"matchLabels", {{"app", "web"}}}}, labels));
  EXPECT_FALSE(
      LabelSelectorMatches({{"matchLabels", {{"app", "api"}}}}, labels));
  EXPECT_TRUE(LabelSelectorMatches(
      {{"matchExpressions",
        {{{"key", "tier"}, {"operator", "NotIn"}, {"values", {"back"}}},
         {{"key", "app"}, {"operator", "Exists"}}}}},
      labels));
  EXPECT_FALSE(LabelSelectorMatches(
      {{"matchExpressions", {{{"key", "app"}, {"operator", "DoesNotExist"}}}}},
      labels));
}

TEST(GoRenderingTest, MapsAndSelectors) {
  EXPECT_EQ(GoStringMap({{"b", "x\"y"}, {"a", "1"}}),
            "map[string]string{\"a\":\"1\", \"b\":\"x\\\"y\"}");
  EXPECT_EQ(GoStringMap(json()), "map[string]string(nil)");
  EXPECT_EQ(GoStringMap(json::object()), "map[string]string{}");
  EXPECT_EQ(GoLabelSelector({{"matchExpressions",
                              {{{"key", "k"}, {"operator", "Exists"}}}}}),
            "v1.LabelSelector{MatchLabels:map[string]string(nil), "
            "MatchExpressions:[]v1.LabelSelectorRequirement{v1."
            "LabelSelectorRequirement{Key:\"k\", Operator:\"Exists\", "
            "Values:[]string(nil)}}}");
}

TEST(PodTemplateHashTest, FnvAndSafeEncoding) {
  // Published FNV-1a 32-bit test vectors.
  EXPECT_EQ(Fnv32a(""), 0x811c9dc5u);
  EXPECT_EQ(Fnv32a("a"), 0xe40c292cu);
  EXPECT_EQ(Fnv32a("foobar"), 0xbf9cf968u);
  EXPECT_EQ(SafeEncodeString("0123456789"), "456789bcdf");
}

TEST(PodTemplateHashTest, StableAndShaped) {
  std::string h = PodTemplateHash(Template("nginx"));
  EXPECT_EQ(h, PodTemplateHash(Template("nginx")));
  // Pinned so that names stay the same across releases.
  EXPECT_EQ(h,
            SafeEncodeString(std::to_string(Fnv32a(Template("nginx").dump()))));
  EXPECT_TRUE(std::regex_match(h, std::regex("[456789bcdf]{1,10}"))) << h;
  // Keys in another order and null fields hash alike.
  json t = json::parse(R"({"spec":{"restartPolicy":"Always","containers":
      [{"image":"nginx","name":"nginx"}]},
      "metadata":{"creationTimestamp":null,"labels":{"app":"web"}}})");
  EXPECT_EQ(PodTemplateHash(t), h);
}

TEST(PodTemplateHashTest, ChangesWithTemplateAndCollisionCount) {
  std::set<std::string> seen;
  for (const char* image : {"nginx", "nginx:1.27", "nginx:1.26", "busybox"}) {
    seen.insert(PodTemplateHash(Template(image)));
  }
  EXPECT_EQ(seen.size(), 4u);
  json t = Template("nginx");
  std::string base = PodTemplateHash(t);
  EXPECT_NE(PodTemplateHash(t, 0), base);
  EXPECT_NE(PodTemplateHash(t, 1), PodTemplateHash(t, 0));
  t["metadata"]["annotations"] = {
      {"kubectl.kubernetes.io/restartedAt", "2025-01-01T00:00:00Z"}};
  EXPECT_NE(PodTemplateHash(t), base);
}

TEST(PodTemplateHashTest, LengthsLikeRealNames) {
  // Over many templates the hash is 1 to 10 characters, mostly 9 or 10.
  int long_ones = 0;
  for (int i = 0; i < 200; ++i) {
    std::string h = PodTemplateHash(Template("img:" + std::to_string(i)));
    EXPECT_GE(h.size(), 1u);
    EXPECT_LE(h.size(), 10u);
    if (h.size() >= 9) ++long_ones;
  }
  EXPECT_GT(long_ones, 150);
}

}  // namespace
}  // namespace kmock::api::kinds
