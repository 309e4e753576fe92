#include "server/table.h"

#include <gtest/gtest.h>

#include "server/test_catalog.h"

namespace kmock::server {
namespace {

using nlohmann::json;

json Pod(const std::string& name, const std::string& phase) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", "default"},
            {"resourceVersion", "7"},
            {"labels", {{"app", "web"}}}}},
          {"spec", {{"nodeName", "node-1"}}},
          {"status", {{"phase", phase}}}};
}

const api::ResourceInfo& Pods() {
  return *testing::TestCatalog().resources()[0];
}

TimePoint Now() { return TimePoint(std::chrono::seconds(1'800'000'000)); }

TEST(TableTest, ListBecomesRowsWithPartialMetadata) {
  json list = {{"kind", "PodList"},
               {"apiVersion", "v1"},
               {"metadata", {{"resourceVersion", "12"}, {"continue", "tok"}}},
               {"items", {Pod("a", "Running"), Pod("b", "Pending")}}};
  json t = ListToTable(Pods(), list, Now(), {});
  EXPECT_EQ(t["kind"], "Table");
  EXPECT_EQ(t["apiVersion"], "meta.k8s.io/v1");
  EXPECT_EQ(t["metadata"],
            json::parse(R"({"resourceVersion":"12","continue":"tok"})"));
  EXPECT_EQ(t["columnDefinitions"][0],
            json::parse(R"({"name":"Name","type":"string","format":"name",
              "description":"The pod's name.","priority":0})"));
  EXPECT_EQ(t["columnDefinitions"][2]["priority"], 1);
  ASSERT_EQ(t["rows"].size(), 2u);
  EXPECT_EQ(t["rows"][1]["cells"], json::array({"b", "Pending", "node-1"}));
  EXPECT_EQ(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
  EXPECT_EQ(t["rows"][0]["object"]["apiVersion"], "meta.k8s.io/v1");
  EXPECT_EQ(t["rows"][0]["object"]["metadata"]["labels"]["app"], "web");
  EXPECT_FALSE(t["rows"][0]["object"].contains("spec"));
}

TEST(TableTest, IncludeObjectVariants) {
  TableOptions full;
  full.include = IncludeObject::kObject;
  json t = ObjectToTable(Pods(), Pod("a", "Running"), Now(), full);
  EXPECT_EQ(t["rows"][0]["object"], Pod("a", "Running"));
  // A list item without its type gets it back in the row.
  json bare = Pod("b", "Running");
  bare.erase("kind");
  bare.erase("apiVersion");
  json row = ListToTable(Pods(), {{"items", {bare}}}, Now(), full)["rows"][0];
  EXPECT_EQ(row["object"]["kind"], "Pod");
  EXPECT_EQ(row["object"]["apiVersion"], "v1");
  TableOptions none;
  none.include = IncludeObject::kNone;
  none.version = "v1beta1";
  json n = ObjectToTable(Pods(), Pod("a", "Running"), Now(), none);
  EXPECT_EQ(n["apiVersion"], "meta.k8s.io/v1beta1");
  EXPECT_FALSE(n["rows"][0].contains("object"));
  EXPECT_EQ(*ParseIncludeObject("Object"), IncludeObject::kObject);
  EXPECT_EQ(*ParseIncludeObject(""), IncludeObject::kMetadata);
  EXPECT_FALSE(ParseIncludeObject("All").ok());
}

TEST(TableTest, SingleObjectIsOneRowWithResourceVersion) {
  json t = ObjectToTable(Pods(), Pod("a", "Running"), Now(), {});
  ASSERT_EQ(t["rows"].size(), 1u);
  EXPECT_EQ(t["metadata"]["resourceVersion"], "7");
  EXPECT_EQ(t["rows"][0]["cells"], json::array({"a", "Running", "node-1"}));
}

TEST(TableTest, ResourceWithoutColumnsGetsNameAndCreatedAt) {
  api::ResourceInfo plain = testing::MakeWidgets("v1");
  json w = {{"metadata",
             {{"name", "w1"}, {"creationTimestamp", "2027-01-15T08:00:00Z"}}}};
  json t = ObjectToTable(plain, w, Now(), {});
  EXPECT_EQ(t["columnDefinitions"].size(), 2u);
  EXPECT_EQ(t["columnDefinitions"][1]["type"], "date");
  EXPECT_EQ(t["rows"][0]["cells"], json::array({"w1", "2027-01-15T08:00:00Z"}));
}

}  // namespace
}  // namespace kmock::server
