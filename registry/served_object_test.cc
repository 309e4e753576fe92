#include "registry/served_object.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "api/builtin_catalog.h"
#include "registry/object_codec.h"

namespace kmock::registry {
namespace {

const api::ResourceInfo& Pods() {
  return *api::testing::BuiltinCatalog().Find("", "v1", "pods");
}

std::string PodBytes(const std::string& name, size_t pad = 0) {
  nlohmann::json pod = {
      {"metadata", {{"name", name}, {"namespace", "default"}}},
      {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}};
  if (pad) pod["metadata"]["annotations"] = {{"pad", std::string(pad, 'x')}};
  return pod.dump();
}

TEST(ServedObjectCacheTest, DecodesEachRevisionOnceAndSharesIt) {
  ServedObjectCache cache;
  std::string bytes = PodBytes("a");
  auto first = cache.Decode(Pods(), "/registry/pods/default/a", bytes, 7);
  auto again = cache.Decode(Pods(), "/registry/pods/default/a", bytes, 7);
  ASSERT_TRUE(first.ok() && again.ok());
  EXPECT_EQ(first->get(), again->get());  // one object for both readers
  EXPECT_EQ(cache.hits(), 1u);
  const nlohmann::json& obj = (*first)->value();
  EXPECT_EQ(obj["kind"], "Pod");
  EXPECT_EQ(obj["apiVersion"], "v1");
  EXPECT_EQ(obj["metadata"]["resourceVersion"], "7");
  // Go field order on the wire: kind and apiVersion first.
  EXPECT_EQ(
      (*first)->JsonBytes().rfind(R"({"kind":"Pod","apiVersion":"v1",)", 0), 0u)
      << (*first)->JsonBytes();
  // Another revision of the same key is another object.
  auto next = cache.Decode(Pods(), "/registry/pods/default/a", bytes, 8);
  ASSERT_TRUE(next.ok());
  EXPECT_NE(next->get(), first->get());
  EXPECT_EQ((*next)->value()["metadata"]["resourceVersion"], "8");
}

// Bytes stored in the served layout are served as they are, with the
// revision put back: the same bytes an encode of the tree would give.
TEST(ServedObjectCacheTest, ServedBytesComeFromStoredBytes) {
  ServedObjectCache cache;
  nlohmann::json pod = nlohmann::json::parse(PodBytes("a"));
  pod["metadata"]["labels"] = {{"app", "web"}};
  pod["metadata"]["uid"] = "u-1";
  pod["status"] = {{"phase", "Running"}};
  pod["kind"] = "Pod";
  pod["apiVersion"] = "v1";
  std::string stored = EncodeForWrite(Pods(), pod);
  auto served = cache.Decode(Pods(), "/registry/pods/default/a", stored, 42);
  ASSERT_TRUE(served.ok());
  ASSERT_NE((*served)->GivenBytes(), nullptr);
  EXPECT_EQ((*served)->JsonBytes(), EncodeServedJson((*served)->value()));
  EXPECT_NE((*served)->JsonBytes().find(R"("resourceVersion":"42")"),
            std::string::npos);
  // Bytes of another layout (sorted keys) are encoded from the tree.
  auto sorted =
      cache.Decode(Pods(), "/registry/pods/default/b", PodBytes("b"), 43);
  ASSERT_TRUE(sorted.ok());
  EXPECT_EQ((*sorted)->GivenBytes(), nullptr);
  EXPECT_EQ((*sorted)->JsonBytes(), EncodeServedJson((*sorted)->value()));
}

// Bytes in the served layout give an object whose tree is parsed on first
// use, once however many threads ask, equal to a decode of the stored
// bytes.
TEST(ServedObjectCacheTest, LaidOutBytesAreParsedOnFirstUse) {
  ServedObjectCache cache;
  nlohmann::json pod = nlohmann::json::parse(PodBytes("a"));
  pod["metadata"]["labels"] = {{"app", "web"}};
  pod["status"] = {{"phase", "Running"}, {"restarts", 3}, {"ratio", 0.5}};
  pod["kind"] = "Pod";
  pod["apiVersion"] = "v1";
  std::string stored = EncodeForWrite(Pods(), pod);
  auto served = cache.Decode(Pods(), "/registry/pods/default/a", stored, 42);
  ASSERT_TRUE(served.ok());
  EXPECT_FALSE((*served)->HasTree());
  EXPECT_NE((*served)->JsonBytes().find(R"("resourceVersion":"42")"),
            std::string::npos);
  EXPECT_FALSE((*served)->HasTree());  // sending the bytes needs no tree

  std::vector<const nlohmann::json*> seen(8);
  std::vector<std::thread> readers;
  for (size_t i = 0; i < seen.size(); ++i)
    readers.emplace_back([&, i] { seen[i] = &(*served)->value(); });
  for (auto& t : readers) t.join();
  for (const auto* v : seen) EXPECT_EQ(v, seen[0]);
  EXPECT_TRUE((*served)->HasTree());
  auto decoded = DecodeObject(Pods(), stored, 42);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ((*served)->value(), *decoded);
  EXPECT_TRUE((*served)->value()["status"]["restarts"].is_number_unsigned());
  EXPECT_EQ((*served)->JsonBytes(), EncodeServedJson((*served)->value()));
}

// A read-modify-write gets a tree of its own: a copy of the cached
// revision, or one decoded now and not remembered.
TEST(ServedObjectCacheTest, DecodeCopyCopiesAHitAndDoesNotRememberAMiss) {
  ServedObjectCache cache;
  const std::string key = "/registry/pods/default/c";
  std::string bytes = PodBytes("c");
  auto cached = cache.Decode(Pods(), key, bytes, 3);
  ASSERT_TRUE(cached.ok());
  auto copy = cache.DecodeCopy(Pods(), key, bytes, 3);
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ(*copy, (*cached)->value());
  EXPECT_EQ(cache.hits(), 1u);
  (*copy)["metadata"]["name"] = "changed";  // the cached one stays as it was
  EXPECT_EQ((*cached)->value()["metadata"]["name"], "c");

  const uint64_t misses = cache.misses();
  auto fresh = cache.DecodeCopy(Pods(), key, bytes, 4);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ((*fresh)["metadata"]["resourceVersion"], "4");
  EXPECT_EQ(cache.misses(), misses + 1);
  ASSERT_TRUE(cache.Decode(Pods(), key, bytes, 4).ok());
  EXPECT_EQ(cache.misses(), misses + 2);  // revision 4 was not kept
}

TEST(ServedObjectCacheTest, MetadataViewsLeaveManagedFieldsOut) {
  ServedObjectCache cache;
  std::string bytes =
      R"({"kind":"Pod","metadata":{"name":"m","managedFields":[{"manager":)"
      R"("kubectl","fieldsV1":{"f:spec":{}}}],"labels":{"a\"b":"c"},)"
      R"("ownerReferences":[{"uid":"u1"}]},"spec":{"containers":[]}})";
  auto meta =
      cache.DecodeMetadata(Pods(), "/registry/pods/default/m", bytes, 5);
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_EQ((*meta)->value(),
            nlohmann::json::parse(
                R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"m",)"
                R"("labels":{"a\"b":"c"},"ownerReferences":[{"uid":"u1"}],)"
                R"("resourceVersion":"5"}})"));
  auto only = cache.DecodeMetadata(Pods(), "/registry/pods/default/n",
                                   R"({"metadata":{"managedFields":[]}})", 6);
  ASSERT_TRUE(only.ok());
  EXPECT_EQ((*only)->value()["metadata"],
            nlohmann::json::parse(R"({"resourceVersion":"6"})"));
}

TEST(ServedObjectCacheTest, MetadataViewsUseTheCacheButDoNotFillIt) {
  ServedObjectCache cache;
  std::string bytes = PodBytes("m");
  auto meta =
      cache.DecodeMetadata(Pods(), "/registry/pods/default/m", bytes, 3);
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ((*meta)->value(),
            nlohmann::json::parse(R"({"apiVersion":"v1","kind":"Pod",)"
                                  R"("metadata":{"name":"m","namespace":)"
                                  R"("default","resourceVersion":"3"}})"));
  EXPECT_EQ(cache.hits(), 0u);
  // Not remembered: a full decode after it decodes anew...
  auto full = cache.Decode(Pods(), "/registry/pods/default/m", bytes, 3);
  ASSERT_TRUE(full.ok());
  EXPECT_TRUE((*full)->value().contains("spec"));
  EXPECT_EQ(cache.hits(), 0u);
  // ...and a cached full object is its own metadata view.
  auto again =
      cache.DecodeMetadata(Pods(), "/registry/pods/default/m", bytes, 3);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->get(), full->get());
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_FALSE(cache
                   .DecodeMetadata(Pods(), "/registry/pods/default/x",
                                   "{\"metadata\":", 4)
                   .ok());
}

// A cached object not parsed yet is not parsed whole for a metadata
// reader: the reader gets a metadata view until the tree exists.
TEST(ServedObjectCacheTest, MetadataViewsDoNotParseBytesOnlyObjects) {
  ServedObjectCache cache;
  nlohmann::json pod = nlohmann::json::parse(PodBytes("l"));
  pod["kind"] = "Pod";
  pod["apiVersion"] = "v1";
  const std::string stored = EncodeForWrite(Pods(), pod);
  const std::string key = "/registry/pods/default/l";
  auto full = cache.Decode(Pods(), key, stored, 5);
  ASSERT_TRUE(full.ok());
  auto meta = cache.DecodeMetadata(Pods(), key, stored, 5);
  ASSERT_TRUE(meta.ok());
  EXPECT_NE(meta->get(), full->get());
  EXPECT_FALSE((*full)->HasTree());
  EXPECT_FALSE((*meta)->value().contains("spec"));
  EXPECT_EQ((*meta)->value()["metadata"]["name"], "l");
  (void)(*full)->value();
  auto again = cache.DecodeMetadata(Pods(), key, stored, 5);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->get(), full->get());
}

TEST(ServedObjectCacheTest, StaysWithinItsByteBudget) {
  ServedObjectCache cache(/*budget_bytes=*/256 << 10);
  std::string bytes = PodBytes("big", 16 << 10);
  for (int rev = 1; rev <= 500; ++rev) {
    ASSERT_TRUE(
        cache.Decode(Pods(), "/registry/pods/default/big", bytes, rev).ok());
    // At most one entry over the budget at any time.
    EXPECT_LE(cache.charged_bytes(), (256u << 10) + 3 * bytes.size() + 512);
  }
  // The newest revisions are still served from the cache.
  uint64_t hits = cache.hits();
  ASSERT_TRUE(
      cache.Decode(Pods(), "/registry/pods/default/big", bytes, 500).ok());
  EXPECT_EQ(cache.hits(), hits + 1);
}

// Even over budget by itself, the object just decoded stays for the other
// watchers of its event (the hand once swept it out when it was the only
// entry, or the next one in turn).
TEST(ServedObjectCacheTest, KeepsTheNewestObjectWhenOverBudget) {
  ServedObjectCache cache(/*budget_bytes=*/1);
  std::string bytes = PodBytes("big", 4 << 10);
  for (int rev = 1; rev <= 20; ++rev) {
    ASSERT_TRUE(
        cache.Decode(Pods(), "/registry/pods/default/big", bytes, rev).ok());
    uint64_t hits = cache.hits();
    ASSERT_TRUE(
        cache.Decode(Pods(), "/registry/pods/default/big", bytes, rev).ok());
    EXPECT_EQ(cache.hits(), hits + 1) << "revision " << rev;
  }
}

// An object the budget pushed out is still found while someone holds it
// (an informer, a controller mid-sync), without a second decode; once
// nobody does, its revision is decoded again.
TEST(ServedObjectCacheTest, FindsPushedOutObjectsWhileTheyAreHeld) {
  ServedObjectCache cache(/*budget_bytes=*/1);
  std::string bytes = PodBytes("held", 4 << 10);
  const std::string key = "/registry/pods/default/held";
  auto held = cache.Decode(Pods(), key, bytes, 1);
  ASSERT_TRUE(held.ok());
  {
    auto other = cache.Decode(Pods(), key, bytes, 2);  // pushes out rev 1
    ASSERT_TRUE(other.ok());
    auto dropped = cache.Decode(Pods(), key, bytes, 3);  // pushes out rev 2
    ASSERT_TRUE(dropped.ok());
  }
  const uint64_t misses = cache.misses();
  auto again = cache.Decode(Pods(), key, bytes, 1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->get(), held->get());
  EXPECT_EQ(cache.misses(), misses);
  auto copy = cache.DecodeCopy(Pods(), key, bytes, 1);
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ(cache.misses(), misses);
  // Revision 2 was pushed out and nobody holds it: decoded anew.
  ASSERT_TRUE(cache.Decode(Pods(), key, bytes, 2).ok());
  EXPECT_EQ(cache.misses(), misses + 1);
}

TEST(ServedObjectTest, ListItemsLeaveOutKindAndApiVersion) {
  ServedObjectCache cache;
  auto pod = cache.Decode(Pods(), "/registry/pods/default/a", PodBytes("a"), 4);
  ASSERT_TRUE(pod.ok());
  std::string item;
  AppendListItemJson(**pod, &item);
  EXPECT_EQ(item.rfind(R"({"metadata":{"name":"a","namespace":"default",)", 0),
            0u)
      << item;
  nlohmann::json parsed = nlohmann::json::parse(item);
  nlohmann::json expected = (*pod)->value();
  expected.erase("kind");
  expected.erase("apiVersion");
  EXPECT_EQ(parsed, expected);
  // An object whose bytes were not written by the typed encoder still
  // becomes a correct item.
  ServedObject odd(
      nlohmann::json{{"metadata", {{"name", "x"}}}, {"kind", "Pod"}});
  std::string odd_item;
  AppendListItemJson(odd, &odd_item);
  EXPECT_EQ(nlohmann::json::parse(odd_item),
            nlohmann::json({{"metadata", {{"name", "x"}}}}));
}

TEST(ServedObjectCacheTest, BadBytesAreAnError) {
  ServedObjectCache cache;
  EXPECT_FALSE(cache.Decode(Pods(), "/registry/pods/default/x", "{", 3).ok());
}

}  // namespace
}  // namespace kmock::registry
