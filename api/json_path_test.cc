#include "api/json_path.h"

#include <gtest/gtest.h>

namespace kmock::api {
namespace {

using nlohmann::json;

const json kPod = json::parse(R"({
  "metadata": {"name": "web", "labels": {"app.kubernetes.io/name": "shop"}},
  "spec": {"containers": [{"name": "a", "image": "nginx"},
                          {"name": "b", "image": "redis"}]}
})");

TEST(JsonPathTest, MembersIndexesAndWildcards) {
  EXPECT_EQ(*JsonPath::Parse(".metadata.name")->First(kPod), "web");
  EXPECT_EQ(*JsonPath::Parse("metadata.name")->First(kPod), "web");
  EXPECT_EQ(*JsonPath::Parse("{$.metadata.name}")->First(kPod), "web");
  EXPECT_EQ(*JsonPath::Parse(".spec.containers[1].image")->First(kPod),
            "redis");
  EXPECT_EQ(*JsonPath::Parse(".spec.containers[-1].name")->First(kPod), "b");
  auto all = JsonPath::Parse(".spec.containers[*].name")->Evaluate(kPod);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(*all[0], "a");
  EXPECT_EQ(*all[1], "b");
  EXPECT_EQ(*JsonPath::Parse(".metadata.labels['app.kubernetes.io/name']")
                 ->First(kPod),
            "shop");
  EXPECT_EQ(JsonPath::Parse(".spec.containers[5].name")->First(kPod), nullptr);
  EXPECT_EQ(JsonPath::Parse(".metadata.name.x")->First(kPod), nullptr);
  EXPECT_EQ(JsonPath::Parse(".spec.replicas")->Root(), "spec");
}

TEST(JsonPathTest, BadSyntaxIsAnError) {
  EXPECT_FALSE(JsonPath::Parse(".spec[").ok());
  EXPECT_FALSE(JsonPath::Parse(".spec[x]").ok());
  EXPECT_FALSE(JsonPath::Parse(".spec..name").ok());
  EXPECT_FALSE(JsonPath::Parse(".spec[99999999999]").ok());
}

}  // namespace
}  // namespace kmock::api
