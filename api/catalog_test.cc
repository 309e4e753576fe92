#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "api/builtin_catalog.h"
#include "api/catalog_loader.h"
#include "api/generic_strategy.h"
#include "api/table_cells.h"

namespace kmock::api {
namespace {

using nlohmann::json;

json Entry() {
  return json::parse(R"({
    "group": "coordination.k8s.io", "version": "v1", "kind": "Lease",
    "list_kind": "LeaseList", "plural": "leases", "singular": "lease",
    "namespaced": true, "verbs": ["get", "list"],
    "key_prefix": "/registry/leases/",
    "schema_type": "io.k8s.api.coordination.v1.Lease",
    "columns": [
      {"name": "Name", "type": "string", "format": "name",
       "json_path": ".metadata.name", "cell": "", "description": "n"},
      {"name": "Holder", "type": "string", "json_path": ".spec.holderIdentity",
       "cell": "orNone", "description": "h"}],
    "selectable_fields": ["spec.holderIdentity"]
  })");
}

TEST(CatalogLoaderTest, AnEntryBecomesAResource) {
  auto r = ResourceFromData(Entry(), Schema::Builtin());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ResourceInfo& lease = **r;
  EXPECT_EQ(lease.QualifiedName(), "leases.coordination.k8s.io");
  ASSERT_NE(lease.strategy, nullptr);  // the generic one
  json obj = {{"metadata", {{"name", "l1"}}}};
  EXPECT_EQ(lease.cells(obj, TimePoint()), (std::vector<json>{"l1", "<none>"}));
  obj["spec"]["holderIdentity"] = "me";
  EXPECT_EQ(lease.cells(obj, TimePoint())[1], "me");
  ASSERT_EQ(lease.selectable_fields.size(), 1u);
  EXPECT_EQ(lease.selectable_fields[0].value(obj), "me");
  EXPECT_EQ(lease.selectable_fields[0].reads, std::vector<std::string>{"spec"});
}

TEST(CatalogLoaderTest, BadEntriesAreRefused) {
  json e = Entry();
  e["columns"][1]["cell"] = "noSuchCell";
  EXPECT_FALSE(ResourceFromData(e, Schema::Builtin()).ok());
  e = Entry();
  e["schema_type"] = "io.k8s.api.core.v1.NoSuchKind";
  EXPECT_FALSE(ResourceFromData(e, Schema::Builtin()).ok());
  e = Entry();
  e["strategy"] = "noSuchCode";
  EXPECT_FALSE(ResourceFromData(e, Schema::Builtin()).ok());
  e = Entry();
  e["key_prefix"] = "";  // stored kinds need a prefix
  EXPECT_FALSE(ResourceFromData(e, Schema::Builtin()).ok());
}

TEST(CatalogTest, TakesResourcesWhileReadersRead) {
  Catalog c;
  auto first = ResourceFromData(Entry(), Schema::Builtin());
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(c.Add(std::move(*first)).ok());
  uint64_t gen = c.generation();
  std::atomic<bool> stop{false};
  std::thread reader([&] {
    while (!stop.load()) {
      ASSERT_NE(c.Find("coordination.k8s.io", "v1", "leases"), nullptr);
      size_t n = 0;
      for (const ResourceInfo* r : c.resources()) n += r != nullptr;
      ASSERT_GE(n, 1u);
    }
  });
  for (int i = 0; i < 50; ++i) {
    json e = Entry();
    e["plural"] = "leases" + std::to_string(i);
    auto r = ResourceFromData(e, Schema::Builtin());
    ASSERT_TRUE(r.ok());
    ASSERT_TRUE(c.Add(std::move(*r)).ok());
  }
  stop = true;
  reader.join();
  EXPECT_GT(c.generation(), gen);
  EXPECT_NE(c.Find("coordination.k8s.io", "v1", "leases49"), nullptr);
  EXPECT_NE(c.FindByKind("coordination.k8s.io", "v1", "Lease"), nullptr);
  // A taken name is a conflict.
  auto again = ResourceFromData(Entry(), Schema::Builtin());
  EXPECT_EQ(c.Add(std::move(*again)).code(), StatusCode::kConflict);
}

TEST(CatalogTest, BuiltinResourcesAreSortedWithinAGroupVersion) {
  std::vector<std::string> core;
  for (const ResourceInfo* r : testing::BuiltinCatalog().resources()) {
    if (r->group.empty()) core.push_back(r->plural);
  }
  EXPECT_TRUE(std::is_sorted(core.begin(), core.end()));
  EXPECT_GE(core.size(), 6u);
}

TEST(TableCellsTest, BuiltInCells) {
  std::vector<PrinterColumn> cols = {
      {"A", "string", "", "", 0, ".metadata.creationTimestamp", "age"},
      {"B", "integer", "", "", 0, ".data+.binaryData", "count"},
      {"C", "string", "", "", 0, ".spec.items[*].name", "join"},
      {"D", "string", "", "", 0, ".spec.selector", "labelSelector"},
      {"E", "integer", "", "", 0, ".status.replicas", "int"},
      {"F", "string", "", "", 0, ".spec.flag", ""},
  };
  auto row = CompileRow(cols);
  ASSERT_TRUE(row.ok());
  json obj = json::parse(R"({
    "metadata": {"creationTimestamp": "2024-05-01T00:00:00Z"},
    "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="},
    "spec": {"items": [{"name": "x"}, {"name": "y"}],
             "selector": {"matchLabels": {"app": "web"}}, "flag": true}
  })");
  TimePoint now = std::chrono::system_clock::from_time_t(1714521600 + 300);
  EXPECT_EQ((*row)(obj, now),
            (std::vector<json>{"5m", 3, "x,y", "app=web", 0, true}));
  EXPECT_EQ((*row)(json::object(), now),
            (std::vector<json>{"<unknown>", 0, "<none>", "<none>", 0, ""}));
  cols[0].cell = "noSuchCell";
  EXPECT_FALSE(CompileRow(cols).ok());
}

TEST(GenericStrategyTest, StatusAndGeneration) {
  GenericStrategy s(&Schema::Builtin(), nullptr, /*has_status=*/true,
                    /*keeps_generation=*/true);
  json obj = {{"spec", {{"a", 1}}}, {"status", {{"x", 1}}}};
  s.PrepareForCreate(obj);
  EXPECT_FALSE(obj.contains("status"));
  EXPECT_EQ(obj["metadata"]["generation"], 1);
  json old = obj;
  old["status"] = {{"ready", true}};
  json same = old;
  same["status"] = {{"ready", false}};
  same["metadata"]["labels"] = {{"l", "v"}};
  s.PrepareForUpdate(same, old);
  EXPECT_EQ(same["status"], old["status"]);  // kept
  EXPECT_EQ(same["metadata"]["generation"], 1);
  json changed = old;
  changed["spec"]["a"] = 2;
  s.PrepareForUpdate(changed, old);
  EXPECT_EQ(changed["metadata"]["generation"], 2);
}

TEST(GenericStrategyTest, SchemaDefaultsFillAbsentFieldsOnly) {
  Schema schema;
  ASSERT_EQ(schema.LoadJson(R"({"types": [
    {"name": "T", "fields": [
      {"name": "mode", "kind": "string", "default": "Auto"},
      {"name": "parts", "kind": "array",
       "items": {"kind": "object", "ref": "P"}}]},
    {"name": "P", "fields": [
      {"name": "port", "kind": "integer", "default": 80},
      {"name": "name", "kind": "string"}]},
    {"name": "Q", "fields": [{"name": "n", "kind": "string"}]}
  ]})"),
            "");
  EXPECT_TRUE(schema.Find("T")->defaults_below);
  EXPECT_FALSE(schema.Find("Q")->defaults_below);
  json obj = json::parse(R"({"parts": [{"name": "a"}, {"port": 8080}]})");
  ApplySchemaDefaults(schema, *schema.Find("T"), obj);
  EXPECT_EQ(obj, json::parse(R"({"mode": "Auto",
      "parts": [{"name": "a", "port": 80}, {"port": 8080}]})"));
  json set = json::parse(R"({"mode": "Manual"})");
  ApplySchemaDefaults(schema, *schema.Find("T"), set);
  EXPECT_EQ(set["mode"], "Manual");
}

}  // namespace
}  // namespace kmock::api
