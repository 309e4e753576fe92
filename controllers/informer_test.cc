// The informer's cache: objects past its hot limit are kept as compact text
// and decoded when read, without changing what readers, indexes and
// handlers see.
#include "controllers/informer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "api/builtin_catalog.h"
#include "common/clock.h"
#include "common/rng.h"
#include "registry/test_registry.h"
#include "store/rocks_storage.h"

namespace kmock::controllers {
namespace {

using std::chrono::milliseconds;

class InformerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage_ = registry::testing::OpenMemoryStore();
    ASSERT_NE(storage_, nullptr);
    // No room for decoded objects beyond the one just decoded: a cold
    // entry's tree is freed unless a reader holds it.
    registry_ = std::make_unique<registry::Registry>(storage_.get(), &clock_,
                                                     &rng_, /*cache*/ 0);
    leases_ = api::testing::BuiltinCatalog().Find("coordination.k8s.io", "v1",
                                                  "leases");
    ASSERT_NE(leases_, nullptr);
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "default").ok());
  }
  void TearDown() override {
    if (informer_) informer_->Stop();
    informer_.reset();
    registry_.reset();
    storage_->Close();
  }

  json Write(const std::string& name, const std::string& holder) {
    json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata", {{"name", name}}},
                  {"spec", {{"holderIdentity", holder}}}};
    registry::WriteOptions wo;
    wo.field_manager = "test";
    auto cur = registry_->Get(*leases_, "default", name);
    auto r = cur.ok() ? registry_->Update(
                            *leases_, "default", name, "",
                            [&] {
                              json o = *cur;
                              o["spec"]["holderIdentity"] = holder;
                              return o;
                            }(),
                            wo)
                      : registry_->Create(*leases_, "default", lease, wo);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->object : json();
  }

  // Waits until the informer has seen revision rv.
  void WaitFor(const json& written) {
    const std::string rv = written["metadata"]["resourceVersion"];
    for (int i = 0; i < 500; ++i) {
      if (informer_->LastResourceVersion() == rv) return;
      std::this_thread::sleep_for(milliseconds(5));
    }
    FAIL() << "informer never saw " << rv;
  }

  static json Stripped(json obj) {
    obj["metadata"].erase("managedFields");
    return obj;
  }

  std::vector<std::string> Names(const std::vector<ObjectPtr>& objs) {
    std::vector<std::string> out;
    for (const auto& o : objs) out.push_back(o->at("metadata").at("name"));
    std::sort(out.begin(), out.end());
    return out;
  }

  FakeClock clock_{TimePoint(std::chrono::seconds(1'800'000'000))};
  Rng rng_{1};
  std::unique_ptr<store::Storage> storage_;
  std::unique_ptr<registry::Registry> registry_;
  const api::ResourceInfo* leases_ = nullptr;
  std::unique_ptr<Informer> informer_;
};

TEST_F(InformerTest, ColdObjectsReadBackAsTheyWereWithoutManagedFields) {
  InformerOptions io;
  io.hot_objects = 2;
  informer_ = std::make_unique<Informer>(registry_.get(), leases_, io);
  informer_->AddIndex("holder", [](const json& o) {
    return std::vector<std::string>{
        o["spec"].value("holderIdentity", std::string())};
  });
  std::vector<std::string> added, deleted;
  std::vector<std::pair<std::string, std::string>> updated;  // old, new holder
  std::mutex mu;
  EventHandlers h;
  h.on_add = [&](const json& o) {
    std::lock_guard<std::mutex> l(mu);
    added.push_back(o["metadata"]["name"]);
  };
  h.on_update = [&](const json& old_obj, const json& new_obj) {
    std::lock_guard<std::mutex> l(mu);
    updated.emplace_back(old_obj["spec"]["holderIdentity"],
                         new_obj["spec"]["holderIdentity"]);
  };
  h.on_delete = [&](const json& o) {
    std::lock_guard<std::mutex> l(mu);
    deleted.push_back(o["spec"]["holderIdentity"]);
  };
  informer_->AddHandlers(h);
  informer_->Start();
  ASSERT_TRUE(informer_->WaitForSync(milliseconds(5000)));

  std::map<std::string, json> written;
  for (int i = 0; i < 6; ++i) {
    std::string name = "l" + std::to_string(i);
    written[name] = Write(name, i % 2 ? "odd" : "even");
  }
  WaitFor(written["l5"]);
  // l0..l3 have gone cold; every object reads back as written (cold ones
  // without managedFields), twice, and through the index.
  for (const auto& [name, obj] : written) {
    ObjectPtr got = informer_->Get("default/" + name);
    ASSERT_NE(got, nullptr) << name;
    EXPECT_EQ(Stripped(*got), Stripped(obj)) << name;
    ObjectPtr again = informer_->Get("default/" + name);
    EXPECT_EQ(got.get(), again.get()) << "decoded once while held: " << name;
  }
  EXPECT_FALSE(
      informer_->Get("default/l0")->at("metadata").contains("managedFields"));
  EXPECT_TRUE(
      informer_->Get("default/l5")->at("metadata").contains("managedFields"));
  EXPECT_EQ(Names(informer_->ByIndex("holder", "even")),
            (std::vector<std::string>{"l0", "l2", "l4"}));
  EXPECT_EQ(Names(informer_->List()).size(), 6u);

  // An update of a cold object hands its handlers the old object.
  json moved = Write("l0", "odd");
  WaitFor(moved);
  EXPECT_EQ(Names(informer_->ByIndex("holder", "odd")),
            (std::vector<std::string>{"l0", "l1", "l3", "l5"}));
  EXPECT_EQ(Names(informer_->ByIndex("holder", "even")),
            (std::vector<std::string>{"l2", "l4"}));
  // A cold object deleted leaves its index.
  registry::DeleteOptions now;
  ASSERT_TRUE(registry_->Delete(*leases_, "default", "l2", now).ok());
  for (int i = 0; i < 500 && informer_->Get("default/l2"); ++i)
    std::this_thread::sleep_for(milliseconds(5));
  EXPECT_EQ(informer_->Get("default/l2"), nullptr);
  EXPECT_EQ(Names(informer_->ByIndex("holder", "even")),
            (std::vector<std::string>{"l4"}));
  std::lock_guard<std::mutex> l(mu);
  EXPECT_EQ(added.size(), 6u);
  EXPECT_EQ(
      updated,
      (std::vector<std::pair<std::string, std::string>>{{"even", "odd"}}));
  EXPECT_EQ(deleted, (std::vector<std::string>{"even"}));
}

// An update that leaves an indexed value as it was keeps the entry under
// that value, and the index hands out the new revision.
TEST_F(InformerTest, UpdateKeepingIndexedValuesServesTheNewRevision) {
  informer_ =
      std::make_unique<Informer>(registry_.get(), leases_, InformerOptions{});
  informer_->AddIndex("holder", [](const json& o) {
    return std::vector<std::string>{
        o["spec"].value("holderIdentity", std::string())};
  });
  informer_->Start();
  ASSERT_TRUE(informer_->WaitForSync(milliseconds(5000)));
  json first = Write("l0", "a");
  Write("l1", "b");
  json relabelled = first;
  relabelled["metadata"]["labels"] = {{"tier", "web"}};
  registry::WriteOptions wo;
  wo.field_manager = "test";
  auto r = registry_->Update(*leases_, "default", "l0", "", relabelled, wo);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  WaitFor(r->object);
  std::vector<ObjectPtr> held = informer_->ByIndex("holder", "a");
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0]->at("metadata").at("resourceVersion"),
            r->object["metadata"]["resourceVersion"]);
  EXPECT_EQ(held[0]->at("metadata").at("labels").at("tier"), "web");
  EXPECT_EQ(Names(informer_->ByIndex("holder", "b")),
            (std::vector<std::string>{"l1"}));
  // Then a change of the value moves it.
  WaitFor(Write("l0", "b"));
  EXPECT_TRUE(informer_->ByIndex("holder", "a").empty());
  EXPECT_EQ(Names(informer_->ByIndex("holder", "b")),
            (std::vector<std::string>{"l0", "l1"}));
}

// Cold objects are kept compressed against a sample of their resource:
// leases that differ in name and holder take a fraction of their text.
TEST_F(InformerTest, ColdObjectsTakeAFractionOfTheirText) {
  InformerOptions io;
  io.hot_objects = 1;
  informer_ = std::make_unique<Informer>(registry_.get(), leases_, io);
  informer_->Start();
  ASSERT_TRUE(informer_->WaitForSync(milliseconds(5000)));
  json last;
  size_t text_bytes = 0;
  for (int i = 0; i < 40; ++i) {
    last = Write("lease-" + std::to_string(i), "holder-" + std::to_string(i));
    if (i < 39) text_bytes += Stripped(last).dump().size();
  }
  WaitFor(last);
  const size_t cold = informer_->ColdBytes();
  EXPECT_GT(cold, 0u);
  EXPECT_LT(cold * 3, text_bytes) << cold << " of " << text_bytes;
  for (int i = 0; i < 40; ++i) {
    ObjectPtr got = informer_->Get("default/lease-" + std::to_string(i));
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got->at("spec").value("holderIdentity", ""),
              "holder-" + std::to_string(i));
  }
}

// A (re)list reads pages of list_page objects at one revision; every
// object of every page reaches the cache and the handlers once.
// A metadata informer may be handed whole objects (the watch shares what
// the writer left in the served cache); what it keeps of a cold one is the
// metadata view only.
TEST_F(InformerTest, MetadataInformerKeepsOnlyMetadataOfColdObjects) {
  InformerOptions io;
  io.hot_objects = 1;
  io.metadata_only = true;
  informer_ = std::make_unique<Informer>(registry_.get(), leases_, io);
  informer_->Start();
  ASSERT_TRUE(informer_->WaitForSync(milliseconds(5000)));
  json first = Write("m0", "a");
  json last = Write("m1", "b");
  WaitFor(last);
  ObjectPtr cold = informer_->Get("default/m0");
  ASSERT_NE(cold, nullptr);
  EXPECT_EQ(cold->at("metadata")["uid"], first["metadata"]["uid"]);
  EXPECT_EQ(cold->at("metadata")["resourceVersion"],
            first["metadata"]["resourceVersion"]);
  EXPECT_EQ(cold->value("kind", ""), "Lease");
  EXPECT_FALSE(cold->contains("spec"));
  EXPECT_FALSE(cold->at("metadata").contains("managedFields"));
}

// An informer too slow for its watch queue has the watch closed under it
// (as kube-apiserver's watch cache closes one); it watches again from the
// last revision it saw, without a relist, and misses nothing.
TEST_F(InformerTest, FallingBehindResumesTheWatchWithoutRelisting) {
  informer_.reset();
  registry_.reset();
  storage_->Close();
  store::StorageOptions so;
  so.watcher_queue_limit = 4;
  storage_ = registry::testing::OpenMemoryStore(so);
  ASSERT_NE(storage_, nullptr);
  registry_ = std::make_unique<registry::Registry>(storage_.get(), &clock_,
                                                   &rng_, /*cache*/ 0);
  ASSERT_TRUE(
      registry::testing::CreateNamespace(registry_.get(), "default").ok());
  informer_ =
      std::make_unique<Informer>(registry_.get(), leases_, InformerOptions{});
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  EventHandlers h;
  h.on_add = [&](const json&) {  // holds the informer until released
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return release; });
  };
  informer_->AddHandlers(h);
  informer_->Start();
  ASSERT_TRUE(informer_->WaitForSync(milliseconds(5000)));
  json last;
  for (int i = 0; i < 20; ++i) last = Write("s" + std::to_string(i), "h");
  {
    std::lock_guard<std::mutex> l(mu);
    release = true;
  }
  cv.notify_all();
  WaitFor(last);
  for (int i = 0; i < 20; ++i)
    EXPECT_NE(informer_->Get("default/s" + std::to_string(i)), nullptr) << i;
  EXPECT_EQ(informer_->ListCount(), 1);
}

TEST_F(InformerTest, ListsInPagesAtOneRevision) {
  std::map<std::string, json> written;
  for (int i = 0; i < 7; ++i) {
    std::string name = "p" + std::to_string(i);
    written[name] = Write(name, "h" + std::to_string(i));
  }
  InformerOptions io;
  io.list_page = 2;
  io.hot_objects = 1;
  informer_ = std::make_unique<Informer>(registry_.get(), leases_, io);
  std::vector<std::string> added;
  std::mutex mu;
  EventHandlers h;
  h.on_add = [&](const json& o) {
    std::lock_guard<std::mutex> l(mu);
    added.push_back(o["metadata"]["name"]);
  };
  informer_->AddHandlers(h);
  informer_->Start();
  ASSERT_TRUE(informer_->WaitForSync(milliseconds(5000)));
  EXPECT_EQ(
      Names(informer_->List()),
      (std::vector<std::string>{"p0", "p1", "p2", "p3", "p4", "p5", "p6"}));
  {
    std::lock_guard<std::mutex> l(mu);
    std::sort(added.begin(), added.end());
    EXPECT_EQ(added, Names(informer_->List()));
  }
  // The watch starts at the list's revision: the last write before it.
  EXPECT_EQ(informer_->LastResourceVersion(),
            written["p6"]["metadata"]["resourceVersion"]);
  for (const auto& [name, obj] : written) {
    ObjectPtr got = informer_->Get("default/" + name);
    ASSERT_NE(got, nullptr) << name;
    EXPECT_EQ(Stripped(*got), Stripped(obj)) << name;
  }
}

// A store whose reads can be made to fail, counting the reads tried.
class FailingReads final : public store::Storage {
 public:
  explicit FailingReads(store::Storage* base) : base_(base) {}
  std::atomic<bool> fail{false};
  std::atomic<int> reads{0};

  Result<store::KeyValue> Get(const std::string& key) override {
    return base_->Get(key);
  }
  Result<store::ListResult> List(const store::ListOptions& o) override {
    ++reads;
    if (fail) return InternalError("Corruption: block checksum mismatch");
    return base_->List(o);
  }
  Result<store::ScanResult> Scan(
      const store::ListOptions& o,
      const std::function<Status(const store::KeyValueView&)>& visit) override {
    ++reads;
    if (fail) return InternalError("Corruption: block checksum mismatch");
    return base_->Scan(o, visit);
  }
  Result<store::KeyValue> Create(const std::string& key,
                                 std::string value) override {
    return base_->Create(key, std::move(value));
  }
  Result<store::KeyValue> Update(const std::string& key, std::string value,
                                 int64_t expected) override {
    return base_->Update(key, std::move(value), expected);
  }
  Result<store::KeyValue> Delete(const std::string& key,
                                 int64_t expected) override {
    return base_->Delete(key, expected);
  }
  Result<std::unique_ptr<store::Watcher>> Watch(const std::string& prefix,
                                                int64_t after) override {
    return base_->Watch(prefix, after);
  }
  Status Compact(int64_t revision) override { return base_->Compact(revision); }
  int64_t CurrentRevision() override { return base_->CurrentRevision(); }
  int64_t CompactedRevision() override { return base_->CompactedRevision(); }
  void SetSyncWrites(bool sync) override { base_->SetSyncWrites(sync); }
  Status SyncAll() override { return base_->SyncAll(); }
  void Close() override { base_->Close(); }

 private:
  store::Storage* base_;
};

// An informer whose lists keep failing (a damaged store) waits longer and
// longer between attempts, as client-go's reflector does, instead of
// asking the store again many times a second; it lists as soon as its
// next attempt succeeds.
TEST_F(InformerTest, FailingListsAreRetriedWithBackoff) {
  FailingReads failing(storage_.get());
  registry::Registry registry(&failing, &clock_, &rng_, /*cache*/ 0);
  failing.fail = true;
  Informer informer(&registry, leases_, InformerOptions{});
  informer.Start();
  std::this_thread::sleep_for(milliseconds(1000));
  // The first attempt, and at most one more after 0.8-1.6 s (a 50 ms
  // pause used to make it about twenty).
  EXPECT_GE(failing.reads.load(), 1);
  EXPECT_LE(failing.reads.load(), 2);
  failing.fail = false;
  EXPECT_TRUE(informer.WaitForSync(milliseconds(5000)));
  informer.Stop();
}

// Stop does not wait for the end of a long back-off.
TEST_F(InformerTest, StopEndsABackoffWait) {
  FailingReads failing(storage_.get());
  registry::Registry registry(&failing, &clock_, &rng_, /*cache*/ 0);
  failing.fail = true;
  InformerOptions io;
  io.backoff.initial = std::chrono::minutes(1);
  Informer informer(&registry, leases_, io);
  informer.Start();
  while (failing.reads.load() == 0)
    std::this_thread::sleep_for(milliseconds(5));
  auto t0 = std::chrono::steady_clock::now();
  informer.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

}  // namespace
}  // namespace kmock::controllers
