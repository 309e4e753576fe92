#include "registry/stored_json.h"

#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "registry/object_codec.h"
#include "registry/served_object.h"

namespace kmock::registry {
namespace {

using nlohmann::json;

const api::ResourceInfo& Res(const std::string& group,
                             const std::string& version,
                             const std::string& resource) {
  return *api::testing::BuiltinCatalog().Find(group, version, resource);
}

// What a decode and an encode give: the reference the splice must equal.
std::string Decoded(const api::ResourceInfo& res, const std::string& stored,
                    int64_t revision, bool with_type) {
  auto obj = DecodeObject(res, stored, revision);
  EXPECT_TRUE(obj.ok());
  if (with_type) return EncodeServedJson(*obj);
  std::string item;
  AppendListItemJson(ServedObject(*obj), &item);
  return item;
}

void ExpectSpliceMatchesDecode(const api::ResourceInfo& res, json obj,
                               int64_t revision) {
  obj["apiVersion"] = res.ApiVersion();
  obj["kind"] = res.kind;
  const std::string stored = EncodeForWrite(res, obj);
  for (bool with_type : {true, false}) {
    std::string out = "prefix";
    ASSERT_TRUE(AppendServedFromStored(res, stored, revision, with_type, &out))
        << stored;
    EXPECT_EQ(out, "prefix" + Decoded(res, stored, revision, with_type))
        << "with_type=" << with_type;
  }
}

TEST(StoredJsonTest, SplicedBytesEqualDecodedAndEncodedOnes) {
  const api::ResourceInfo& pods = Res("", "v1", "pods");
  json full = {
      {"metadata",
       {{"name", "web-1"},
        {"generateName", "web-"},
        {"namespace", "default"},
        {"uid", "8a1c"},
        {"resourceVersion", "3"},  // replaced by the revision
        {"generation", 2},
        {"creationTimestamp", "2026-01-01T00:00:00Z"},
        {"deletionTimestamp", "2026-01-01T00:01:00Z"},
        {"deletionGracePeriodSeconds", 30},
        {"labels", {{"app", "web"}, {"tier", "<front>&"}}},
        {"annotations", {{"note", "a \"quoted\" value"}}},
        {"ownerReferences",
         {{{"apiVersion", "apps/v1"},
           {"kind", "ReplicaSet"},
           {"name", "web"},
           {"uid", "77"},
           {"controller", true}}}},
        {"finalizers", {"example.com/keep"}},
        {"managedFields",
         {{{"manager", "kubectl"},
           {"operation", "Update"},
           {"fieldsType", "FieldsV1"},
           {"fieldsV1", {{"f:spec", json::object()}}}}}}}},
      {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}},
      {"status", {{"phase", "Running"}}}};
  ExpectSpliceMatchesDecode(pods, full, 12345);

  // resourceVersion's neighbours missing, one at a time and all at once.
  for (const char* gone : {"uid", "generation", "creationTimestamp", "labels",
                           "managedFields", "name"}) {
    json obj = full;
    obj["metadata"].erase(gone);
    ExpectSpliceMatchesDecode(pods, obj, 7);
  }
  json only_early = {{"metadata", {{"name", "a"}, {"namespace", "ns"}}}};
  ExpectSpliceMatchesDecode(pods, only_early, 1);  // goes last
  json only_late = {{"metadata", {{"labels", {{"a", "b"}}}}}};
  ExpectSpliceMatchesDecode(pods, only_late, 1);  // goes first
  ExpectSpliceMatchesDecode(pods, {{"metadata", json::object()}}, 99);
  // A metadata field the schema does not know is written after the known
  // ones, so the revision goes before it.
  json unknown = only_early;
  unknown["metadata"]["zzUnknown"] = 1;
  unknown["metadata"]["aaUnknown"] = 2;
  ExpectSpliceMatchesDecode(pods, unknown, 5);

  // Cluster-scoped kinds and other groups too.
  ExpectSpliceMatchesDecode(Res("", "v1", "nodes"),
                            {{"metadata", {{"name", "n1"}, {"uid", "u"}}},
                             {"status", {{"capacity", {{"cpu", "4"}}}}}},
                            42);
  ExpectSpliceMatchesDecode(
      Res("apps", "v1", "deployments"),
      {{"metadata", {{"name", "d"}, {"namespace", "x"}, {"generation", 3}}},
       {"spec", {{"replicas", 2}}}},
      8);
}

TEST(StoredJsonTest, BytesItCannotVouchForAreLeftToTheDecoder) {
  const api::ResourceInfo& pods = Res("", "v1", "pods");
  std::string out = "unchanged";
  // The older layout (sorted keys, apiVersion first).
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "a"}, {"namespace", "default"}}}};
  EXPECT_FALSE(AppendServedFromStored(pods, pod.dump(), 3, true, &out));
  // Another kind's bytes, cut-off bytes, and a stored resourceVersion.
  EXPECT_FALSE(AppendServedFromStored(
      pods, R"({"kind":"Node","apiVersion":"v1","metadata":{}})", 3, true,
      &out));
  EXPECT_FALSE(AppendServedFromStored(
      pods, R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"a")", 3,
      true, &out));
  EXPECT_FALSE(AppendServedFromStored(
      pods,
      R"({"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"1"}})",
      3, true, &out));
  // A key with an escape where the revision would go (the encoder never
  // writes one there).
  EXPECT_FALSE(AppendServedFromStored(
      pods,
      R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","l\u0061bels":{}}})",
      3, true, &out));
  // A kind with a storage conversion (events.k8s.io Events are stored as
  // core Events).
  const api::ResourceInfo& events = Res("events.k8s.io", "v1", "events");
  json event = {{"apiVersion", events.ApiVersion()},
                {"kind", events.kind},
                {"metadata", {{"name", "e"}, {"namespace", "default"}}}};
  EXPECT_FALSE(AppendServedFromStored(events, EncodeForWrite(events, event), 3,
                                      true, &out));
  EXPECT_EQ(out, "unchanged");
}

TEST(StoredJsonTest, LabelsAreReadWithoutTheRestOfTheObject) {
  auto labels = StoredLabels(
      R"({"kind":"Pod","metadata":{"name":"a","labels":{"app":"web"}},)"
      R"("spec":{"containers":[{"name":"c"}]}})");
  ASSERT_TRUE(labels.has_value());
  EXPECT_EQ(*labels, json({{"app", "web"}}));
  auto none = StoredLabels(R"({"kind":"Pod","metadata":{"name":"a"}})");
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->is_null());
  EXPECT_FALSE(StoredLabels(R"({"kind":"Pod"})").has_value());
  EXPECT_FALSE(StoredLabels(R"({"metadata":{"labels":{"a":}}})").has_value());
}

}  // namespace
}  // namespace kmock::registry
