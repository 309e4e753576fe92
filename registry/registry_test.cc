// The registry pipeline against the real store (in memory) and catalog.
#include "registry/registry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "api/builtin_catalog.h"
#include "api/resource.h"
#include "registry/object_codec.h"
#include "registry/test_registry.h"

namespace kmock::registry {
namespace {

using nlohmann::json;

class RegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage_ = registry::testing::OpenMemoryStore();
    ASSERT_NE(storage_, nullptr);
    registry_ = std::make_unique<Registry>(storage_.get(), &clock_, &rng_);
    pods_ = api::testing::BuiltinCatalog().Find("", "v1", "pods");
    namespaces_ = api::testing::BuiltinCatalog().Find("", "v1", "namespaces");
    ASSERT_NE(pods_, nullptr);
    ASSERT_NE(namespaces_, nullptr);
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "default").ok());
  }

  json Pod(const std::string& name, json labels = json::object()) {
    return json{
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", name}, {"labels", labels}}},
        {"spec", {{"containers", {{{"name", "c1"}, {"image", "nginx"}}}}}}};
  }

  FakeClock clock_{TimePoint(std::chrono::seconds(1'800'000'000))};
  Rng rng_{1};
  std::unique_ptr<store::Storage> storage_;
  std::unique_ptr<Registry> registry_;
  const api::ResourceInfo* pods_ = nullptr;
  const api::ResourceInfo* namespaces_ = nullptr;
};

// A status write validates the status and metadata it may change, not the
// rest, which is the stored object's (kube-apiserver's status strategies
// validate the status alone): a pod whose stored spec no longer passes
// validation still takes status writes, while a write of the pod itself is
// refused.
TEST_F(RegistryTest, StatusWritesDoNotValidateTheStoredSpec) {
  ASSERT_TRUE(registry_->Create(*pods_, "default", Pod("old"), {}).ok());
  const std::string key = ObjectKey(*pods_, "default", "old");
  auto cur = storage_->Get(key);
  ASSERT_TRUE(cur.ok());
  auto stored = DecodeObject(*pods_, cur->value, cur->mod_revision);
  ASSERT_TRUE(stored.ok());
  json invalid = *stored;
  invalid["spec"]["containers"][0]["name"] = "Not_A_DNS_Label";
  ASSERT_TRUE(
      storage_->Update(key, EncodeForWrite(*pods_, invalid), cur->mod_revision)
          .ok());

  auto st = registry_->GuaranteedUpdate(*pods_, "default", "old", "status",
                                        [](json& o) {
                                          o["status"]["phase"] = "Running";
                                          return Status::Ok();
                                        },
                                        {});
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ((*st)["status"]["phase"], "Running");
  // The metadata a status writer may change is still checked.
  auto bad =
      registry_->GuaranteedUpdate(*pods_, "default", "old", "status",
                                  [](json& o) {
                                    o["metadata"]["labels"]["bad label"] = "x";
                                    return Status::Ok();
                                  },
                                  {});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalid);

  auto main = registry_->GuaranteedUpdate(*pods_, "default", "old", "",
                                          [](json& o) {
                                            o["metadata"]["labels"]["a"] = "b";
                                            return Status::Ok();
                                          },
                                          {});
  EXPECT_EQ(main.status().code(), StatusCode::kInvalid);
  EXPECT_NE(main.status().message().find("spec.containers[0].name"),
            std::string::npos)
      << main.status().message();
}

// A controller's read-modify-write sees the object without managedFields
// (as its informer holds it); the write keeps the stored entries and adds
// the writer's, and a mutation that changes nothing writes nothing.
// A write whose client has stopped waiting stores nothing: the work done
// after the deadline (a slow patch) is thrown away with a 504.
TEST_F(RegistryTest, WritesPastTheirDeadlineStoreNothing) {
  WriteOptions late;
  late.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  auto created = registry_->Create(*pods_, "default", Pod("late"), late);
  ASSERT_EQ(created.status().code(), StatusCode::kTimeout);
  EXPECT_EQ(created.status().message(),
            "Timeout: request did not complete within the allotted timeout");
  EXPECT_EQ(registry_->Get(*pods_, "default", "late").status().code(),
            StatusCode::kNotFound);

  ASSERT_TRUE(registry_->Create(*pods_, "default", Pod("p"), {}).ok());
  auto patched =
      registry_->Patch(*pods_, "default", "p", "", PatchType::kMergePatch,
                       R"({"metadata":{"labels":{"a":"b"}}})", late);
  ASSERT_EQ(patched.status().code(), StatusCode::kTimeout);
  auto after = registry_->Get(*pods_, "default", "p");
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->at("metadata").contains("labels") &&
               after->at("metadata")["labels"].contains("a"));

  DeleteOptions late_delete;
  late_delete.deadline = late.deadline;
  late_delete.grace_period_seconds = 0;
  EXPECT_EQ(
      registry_->Delete(*pods_, "default", "p", late_delete).status().code(),
      StatusCode::kTimeout);
  EXPECT_TRUE(registry_->Get(*pods_, "default", "p").ok());

  WriteOptions in_time;
  in_time.deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
  EXPECT_TRUE(registry_->Create(*pods_, "default", Pod("early"), in_time).ok());
}

// Fields the schema does not know are dropped before anything is stored or
// recorded, as a real server's decoder drops them, unless validation is
// strict (which refuses the write).
TEST_F(RegistryTest, UnknownFieldsArePrunedUnlessStrict) {
  json pod = Pod("unknown");
  pod["spec"]["bogus"] = 1;
  pod["spec"]["containers"][0]["colour"] = "red";
  pod["metadata"]["labelz"] = {{"a", "b"}};
  std::vector<std::string> warnings;
  WriteOptions warn;
  warn.warnings = &warnings;
  auto created = registry_->Create(*pods_, "default", pod, warn);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          "unknown field \"metadata.labelz\"",
                          "unknown field \"spec.bogus\"",
                          "unknown field \"spec.containers[0].colour\""}));
  auto stored = registry_->Get(*pods_, "default", "unknown");
  ASSERT_TRUE(stored.ok());
  EXPECT_FALSE((*stored)["spec"].contains("bogus"));
  EXPECT_FALSE((*stored)["spec"]["containers"][0].contains("colour"));
  EXPECT_FALSE((*stored)["metadata"].contains("labelz"));
  std::string managed = (*stored)["metadata"]["managedFields"].dump();
  EXPECT_EQ(managed.find("bogus"), std::string::npos) << managed;
  EXPECT_EQ(managed.find("colour"), std::string::npos) << managed;

  // Ignore drops them silently; patches are pruned the same way.
  WriteOptions ignore;
  ignore.field_validation = FieldValidation::kIgnore;
  auto patched =
      registry_->Patch(*pods_, "default", "unknown", "", PatchType::kMergePatch,
                       R"({"spec":{"other":true}})", ignore);
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_FALSE(patched->object["spec"].contains("other"));

  WriteOptions strict;
  strict.field_validation = FieldValidation::kStrict;
  pod["metadata"]["name"] = "strict";
  EXPECT_EQ(registry_->Create(*pods_, "default", pod, strict).status().code(),
            StatusCode::kBadRequest);
}

// Server-side apply types the configuration first, and a field its schema
// does not declare fails the apply, as structured-merge-diff's conversion
// does on a real server (a 500 without a reason, whatever fieldValidation
// says).
TEST_F(RegistryTest, ApplyOfAnUndeclaredFieldFails) {
  json pod = Pod("applied");
  pod["spec"]["containers"][0]["colour"] = "red";
  WriteOptions apply;
  apply.field_manager = "tester";
  apply.field_validation = FieldValidation::kIgnore;
  auto r = registry_->Patch(*pods_, "default", "applied", "", PatchType::kApply,
                            pod.dump(), apply);
  ASSERT_EQ(r.status().code(), StatusCode::kUnclassified);
  EXPECT_EQ(r.status().message(),
            "failed to create typed patch object (/applied; /v1, "
            "Kind=Pod): .spec.containers[name=\"c1\"].colour: field not "
            "declared in schema");
  EXPECT_EQ(registry_->Get(*pods_, "default", "applied").status().code(),
            StatusCode::kNotFound);
}

// No write stores an object deeper than a request body may nest, however
// it was built.
TEST_F(RegistryTest, ObjectsDeeperThanTheBodyLimitAreRefused) {
  json deep = 1;
  for (int i = 0; i < 1200; ++i) deep = json::array({std::move(deep)});
  json pod = Pod("deep");
  pod["metadata"]["annotations"] = {{"a", "b"}};
  pod["spec"]["bogus"] = deep;
  auto r = registry_->Create(*pods_, "default", pod, {});
  ASSERT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(r.status().message(), "the object nests deeper than 1000 levels");
}

TEST_F(RegistryTest, GuaranteedUpdateMutatesWithoutManagedFields) {
  WriteOptions creator;
  creator.field_manager = "creator";
  ASSERT_TRUE(registry_->Create(*pods_, "default", Pod("m"), creator).ok());
  WriteOptions kubelet;
  kubelet.field_manager = "kubelet";
  bool saw_fields = true;
  auto r = registry_->GuaranteedUpdate(
      *pods_, "default", "m", "status",
      [&](json& o) {
        saw_fields = o["metadata"].contains("managedFields");
        o["status"]["phase"] = "Running";
        return Status::Ok();
      },
      kubelet);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(saw_fields);
  std::vector<std::string> managers;
  for (const json& e : (*r)["metadata"]["managedFields"])
    managers.push_back(e["manager"]);
  EXPECT_EQ(managers, (std::vector<std::string>{"creator", "kubelet"}));
  EXPECT_TRUE(
      (*r)["metadata"]["managedFields"][1]["fieldsV1"]["f:status"].contains(
          "f:phase"));

  const int64_t before = storage_->CurrentRevision();
  for (const char* sub : {"", "status"}) {
    auto same = registry_->GuaranteedUpdate(
        *pods_, "default", "m", sub,
        [](json& o) {
          o["status"]["phase"] = "Running";
          return Status::Ok();
        },
        kubelet);
    ASSERT_TRUE(same.ok()) << same.status().ToString();
    EXPECT_EQ((*same)["metadata"]["managedFields"],
              (*r)["metadata"]["managedFields"]);
  }
  EXPECT_EQ(storage_->CurrentRevision(), before);
  // A change to the metadata alone is a change.
  auto labelled = registry_->GuaranteedUpdate(
      *pods_, "default", "m", "",
      [](json& o) {
        o["metadata"]["labels"]["tier"] = "web";
        return Status::Ok();
      },
      kubelet);
  ASSERT_TRUE(labelled.ok()) << labelled.status().ToString();
  EXPECT_GT(storage_->CurrentRevision(), before);
}

TEST_F(RegistryTest, CreateSetsSystemMetadataAndDefaults) {
  auto r = registry_->Create(*pods_, "default", Pod("hello"), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->created);
  const json& m = r->object["metadata"];
  EXPECT_EQ(m["namespace"], "default");
  EXPECT_EQ(m["uid"].get<std::string>().size(), 36u);
  EXPECT_EQ(m["creationTimestamp"], "2027-01-15T08:00:00Z");
  EXPECT_FALSE(m["resourceVersion"].get<std::string>().empty());
  EXPECT_EQ(r->object["spec"]["restartPolicy"], "Always");
  auto got = registry_->Get(*pods_, "default", "hello");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->at("metadata").at("uid"), m["uid"]);
}

// A write answers with the object as stored, without reading it back: the
// answer must equal what a read then returns, byte for byte, for a kind
// stored as served and for one stored in another form.
TEST_F(RegistryTest, WritesAnswerWhatAReadReturns) {
  auto c = registry_->Create(*pods_, "default", Pod("same", {{"a", "b"}}), {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto g = registry_->Get(*pods_, "default", "same");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(c->object.dump(), g->dump());
  json changed = *g;
  changed["metadata"]["labels"]["c"] = "d";
  auto u = registry_->Update(*pods_, "default", "same", "", changed, {});
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  g = registry_->Get(*pods_, "default", "same");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(u->object.dump(), g->dump());
  EXPECT_NE(u->object["metadata"]["resourceVersion"],
            c->object["metadata"]["resourceVersion"]);

  const api::ResourceInfo* events =
      api::testing::BuiltinCatalog().Find("events.k8s.io", "v1", "events");
  ASSERT_NE(events, nullptr);
  json ev = {{"apiVersion", "events.k8s.io/v1"},
             {"kind", "Event"},
             {"metadata", {{"name", "e1"}}},
             {"eventTime", "2027-01-15T08:00:00.000000Z"},
             {"reportingController", "lab/controller"},
             {"reportingInstance", "lab-1"},
             {"action", "Started"},
             {"reason", "Started"},
             {"type", "Normal"},
             {"regarding", {{"kind", "Pod"}, {"name", "same"}}}};
  auto ce = registry_->Create(*events, "default", ev, {});
  ASSERT_TRUE(ce.ok()) << ce.status().ToString();
  auto ge = registry_->Get(*events, "default", "e1");
  ASSERT_TRUE(ge.ok());
  EXPECT_EQ(ce->object.dump(), ge->dump());
}

// Writes without a resourceVersion never fail for losing a race, as
// kube-apiserver's GuaranteedUpdate retries them until they land: many
// writers patching and updating one pod at once all succeed, and every
// write is counted.
TEST_F(RegistryTest, UnconditionalWritesRetryUntilTheyLand) {
  ASSERT_TRUE(registry_->Create(*pods_, "default", Pod("busy"), {}).ok());
  // 24 x 60 made some writes lose 64 races in a row before; under a
  // sanitizer every attempt is tens of times slower, and that load would
  // take minutes (and can starve a writer for its whole time bound).
  const bool sanitized = std::getenv("KMOCK_SANITIZER") != nullptr;
  const int kThreads = sanitized ? 8 : 24;
  const int kWrites = sanitized ? 20 : 60;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kWrites; ++i) {
        std::string value = std::to_string(t) + "-" + std::to_string(i);
        Status st;
        if (i % 2 == 0) {
          st =
              registry_
                  ->Patch(*pods_, "default", "busy", "", PatchType::kMergePatch,
                          R"({"metadata":{"labels":{"t)" + std::to_string(t) +
                              R"(":")" + value + "\"}}}",
                          {})
                  .status();
        } else {
          st = registry_
                   ->GuaranteedUpdate(*pods_, "default", "busy", "",
                                      [&](json& obj) {
                                        obj["metadata"]["annotations"]
                                           ["a" + std::to_string(t)] = value;
                                        return Status::Ok();
                                      },
                                      {})
                   .status();
        }
        if (!st.ok()) failures++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  auto got = registry_->Get(*pods_, "default", "busy");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)["metadata"]["labels"].size(), static_cast<size_t>(kThreads));
  EXPECT_EQ((*got)["metadata"]["annotations"].size(),
            static_cast<size_t>(kThreads));
}

TEST_F(RegistryTest, CreateErrorsLikeKubeApiserver) {
  ASSERT_TRUE(registry_->Create(*pods_, "default", Pod("hello"), {}).ok());
  auto dup = registry_->Create(*pods_, "default", Pod("hello"), {});
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(dup.status().message(), "pods \"hello\" already exists");

  auto nons = registry_->Create(*pods_, "nosuch", Pod("x"), {});
  ASSERT_FALSE(nons.ok());
  EXPECT_EQ(nons.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(nons.status().message(), "namespaces \"nosuch\" not found");

  json bad = Pod("nocontainers");
  bad["spec"]["containers"] = json::array();
  auto inv = registry_->Create(*pods_, "default", bad, {});
  ASSERT_FALSE(inv.ok());
  EXPECT_EQ(inv.status().code(), StatusCode::kInvalid);
  EXPECT_NE(inv.status().message().find("spec.containers: Required value"),
            std::string::npos)
      << inv.status().message();
  EXPECT_FALSE(registry_->Get(*pods_, "default", "nocontainers").ok());
}

TEST_F(RegistryTest, GenerateName) {
  json p = Pod("");
  p["metadata"].erase("name");
  p["metadata"]["generateName"] = "web-";
  auto r = registry_->Create(*pods_, "default", p, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::string name = r->object["metadata"]["name"];
  EXPECT_EQ(name.rfind("web-", 0), 0u);
  EXPECT_EQ(name.size(), 9u);
}

TEST_F(RegistryTest, UpdateWithStaleResourceVersionConflicts) {
  auto r = registry_->Create(*pods_, "default", Pod("hello"), {});
  ASSERT_TRUE(r.ok());
  json v1 = r->object;
  json v2 = v1;
  v2["metadata"]["labels"]["a"] = "b";
  auto u = registry_->Update(*pods_, "default", "hello", "", v2, {});
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_NE(u->object["metadata"]["resourceVersion"],
            v1["metadata"]["resourceVersion"]);
  auto stale = registry_->Update(*pods_, "default", "hello", "", v2, {});
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), StatusCode::kConflict);
  EXPECT_EQ(
      stale.status().message(),
      "Operation cannot be fulfilled on pods \"hello\": the object has been "
      "modified; please apply your changes to the latest version and try "
      "again");
}

TEST_F(RegistryTest, StrategicMergePatchOfContainers) {
  ASSERT_TRUE(registry_->Create(*pods_, "default", Pod("hello"), {}).ok());
  auto p = registry_->Patch(
      *pods_, "default", "hello", "", PatchType::kStrategicMerge,
      R"({"metadata":{"labels":{"x":"y"}},"spec":{"$setElementOrder/containers":[{"name":"c1"}],"containers":[{"name":"c1","image":"nginx:1.27"}]}})",
      {});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->object["spec"]["containers"][0]["image"], "nginx:1.27");
  EXPECT_EQ(p->object["spec"]["containers"][0]["name"], "c1");
  EXPECT_EQ(p->object["metadata"]["labels"]["x"], "y");
}

TEST_F(RegistryTest, ListWithSelectorsAndPages) {
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(registry_
                    ->Create(*pods_, "default",
                             Pod("p" + std::to_string(i),
                                 {{"app", i % 2 ? "odd" : "even"}}),
                             {})
                    .ok());
  ListOptions lo;
  lo.label_selector = "app=even";
  auto l = registry_->List(*pods_, "default", lo);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->at("items").size(), 3u);
  EXPECT_EQ(l->at("kind"), "PodList");

  ListOptions page;
  page.limit = 2;
  auto p1 = registry_->List(*pods_, "default", page);
  ASSERT_TRUE(p1.ok());
  ASSERT_EQ(p1->at("items").size(), 2u);
  EXPECT_EQ(p1->at("metadata").at("remainingItemCount"), 3);
  // A write between pages does not show up: the pages are pinned.
  ASSERT_TRUE(registry_->Create(*pods_, "default", Pod("p9"), {}).ok());
  page.continue_token = p1->at("metadata").at("continue");
  auto p2 = registry_->List(*pods_, "default", page);
  ASSERT_TRUE(p2.ok()) << p2.status().ToString();
  EXPECT_EQ(p2->at("items")[0]["metadata"]["name"], "p2");
  page.continue_token = p2->at("metadata").at("continue");
  auto p3 = registry_->List(*pods_, "default", page);
  ASSERT_TRUE(p3.ok());
  EXPECT_EQ(p3->at("items").size(), 1u);
  EXPECT_FALSE(p3->at("metadata").contains("continue"));

  ListOptions badfield;
  badfield.field_selector = "spec.nope=1";
  auto bf = registry_->List(*pods_, "default", badfield);
  ASSERT_FALSE(bf.ok());
  EXPECT_EQ(bf.status().message(), "field label not supported: spec.nope");
}

// The JSON list writer (stored bytes spliced, read in chunks) gives what
// the decoded list gives, byte for byte, with every kind of option.
TEST_F(RegistryTest, JsonListsEqualDecodedOnes) {
  ASSERT_TRUE(registry_
                  ->Create(*namespaces_, "",
                           json{{"metadata", {{"name", "other"}}}}, {})
                  .ok());
  for (int i = 0; i < 23; ++i) {
    json pod = Pod("p" + std::to_string(i), {{"app", i % 3 ? "web" : "db"}});
    if (i % 4 == 0) pod["metadata"]["annotations"] = {{"n", "<&>"}};
    ASSERT_TRUE(
        registry_->Create(*pods_, i % 5 ? "default" : "other", pod, {}).ok());
  }
  // Some updated, so revisions differ.
  for (int i = 1; i < 23; i += 6) {
    auto r = registry_->GuaranteedUpdate(
        *pods_, i % 5 ? "default" : "other", "p" + std::to_string(i), "",
        [](json& o) {
          o["metadata"]["labels"]["touched"] = "yes";
          return Status::Ok();
        },
        {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  auto decoded = [&](std::string_view ns, ListOptions lo) {
    std::string out;
    auto l = registry_->ListServed(*pods_, ns, lo);
    EXPECT_TRUE(l.ok()) << l.status().ToString();
    for (size_t i = 0; i < l->items.size(); ++i) {
      if (i) out += ',';
      AppendListItemJson(*l->items[i], &out);
    }
    return out + "|" + std::to_string(l->revision) + "|" + l->continue_token +
           "|" + std::to_string(l->remaining_item_count.value_or(-1));
  };
  auto written = [&](std::string_view ns, ListOptions lo, size_t chunk) {
    std::string out;
    auto w = registry_->ListJson(*pods_, ns, lo);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    while (true) {
      auto more = (*w)->Next(&out, chunk);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) break;
    }
    return out + "|" + std::to_string((*w)->revision()) + "|" +
           (*w)->continue_token() + "|" +
           std::to_string((*w)->remaining_item_count().value_or(-1));
  };
  std::vector<ListOptions> cases(7);
  cases[1].label_selector = "app=web";
  cases[2].field_selector = "metadata.name!=p4";
  cases[3].limit = 5;
  cases[4].limit = 4;
  cases[4].label_selector = "app in (db)";
  cases[5].label_selector = "touched";
  cases[5].field_selector = "status.phase=Pending";
  cases[6].limit = 100;
  for (std::string_view ns : {"", "default", "other"}) {
    for (size_t c = 0; c < cases.size(); ++c) {
      std::string want = decoded(ns, cases[c]);
      for (size_t chunk : {1, 3, 1000})
        EXPECT_EQ(written(ns, cases[c], chunk), want)
            << "namespace " << ns << ", case " << c << ", chunk " << chunk;
    }
  }
  // Without a field selector nothing was decoded: the items are the stored
  // bytes.
  auto lookups = [&] {
    return registry_->served_cache().hits() +
           registry_->served_cache().misses();
  };
  const uint64_t before = lookups();
  written("", cases[1], 1000);
  written("", cases[3], 2);
  EXPECT_EQ(lookups(), before);

  // Following the continue tokens gives every pod once.
  ListOptions page;
  page.limit = 4;
  int seen = 0;
  while (true) {
    auto w = registry_->ListJson(*pods_, "", page);
    ASSERT_TRUE(w.ok());
    std::string items;
    while (true) {
      auto more = (*w)->Next(&items, 2);
      ASSERT_TRUE(more.ok());
      if (!*more) break;
    }
    seen += json::parse("[" + items + "]").size();
    page.continue_token = (*w)->continue_token();
    if (page.continue_token.empty()) break;
  }
  EXPECT_EQ(seen, 23);
}

TEST_F(RegistryTest, WatchFromZeroSendsAddedThenChanges) {
  ASSERT_TRUE(registry_->Create(*pods_, "default", Pod("a"), {}).ok());
  WatchOptions wo;
  wo.field_selector = "metadata.name=b";
  auto w = registry_->Watch(*pods_, "default", WatchOptions{});
  ASSERT_TRUE(w.ok());
  auto wb = registry_->Watch(*pods_, "default", wo);
  ASSERT_TRUE(wb.ok());
  std::vector<WatchEvent> evs;
  ASSERT_TRUE((*w)->Next(std::chrono::milliseconds(100), &evs).ok());
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].type, "ADDED");
  ASSERT_TRUE(registry_->Create(*pods_, "default", Pod("b"), {}).ok());
  DeleteOptions now;
  now.grace_period_seconds = 0;
  ASSERT_TRUE(registry_->Delete(*pods_, "default", "a", now).ok());
  evs.clear();
  for (int i = 0; i < 20 && evs.size() < 2; ++i)
    ASSERT_TRUE((*w)->Next(std::chrono::milliseconds(100), &evs).ok());
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].type, "ADDED");
  EXPECT_EQ(evs[0].object()["metadata"]["name"], "b");
  EXPECT_EQ(evs[1].type, "DELETED");
  EXPECT_EQ(evs[1].object()["metadata"]["name"], "a");
  std::vector<WatchEvent> only_b;
  for (int i = 0; i < 20 && only_b.empty(); ++i)
    ASSERT_TRUE((*wb)->Next(std::chrono::milliseconds(100), &only_b).ok());
  ASSERT_EQ(only_b.size(), 1u);
  EXPECT_EQ(only_b[0].object()["metadata"]["name"], "b");
}

// A selected watch turns a change that moves an object into or out of the
// selection into ADDED or DELETED: the old value decides, whether the
// selector reads labels only (the old metadata alone is parsed) or a field
// of the status.
TEST_F(RegistryTest, SelectedWatchSeesObjectsEnterAndLeave) {
  ASSERT_TRUE(registry_->Create(*pods_, "default", Pod("p"), {}).ok());
  WatchOptions by_label;
  by_label.resource_version =
      std::to_string(registry_->storage()->CurrentRevision());
  by_label.label_selector = "tier=web";
  WatchOptions by_field = by_label;
  by_field.label_selector.clear();
  by_field.field_selector = "status.phase=Running";
  WatchOptions by_both = by_field;
  by_both.label_selector = "tier=web";
  auto wl = registry_->Watch(*pods_, "default", by_label);
  auto wf = registry_->Watch(*pods_, "default", by_field);
  auto wb = registry_->Watch(*pods_, "default", by_both);
  ASSERT_TRUE(wl.ok() && wf.ok() && wb.ok());
  auto change = [&](const std::function<void(json&)>& f,
                    std::string_view subresource = "") {
    auto r = registry_->GuaranteedUpdate(*pods_, "default", "p", subresource,
                                         [&](json& obj) {
                                           f(obj);
                                           return Status::Ok();
                                         },
                                         {});
    ASSERT_TRUE(r.ok()) << r.status().message();
  };
  change([](json& o) { o["metadata"]["labels"]["tier"] = "web"; });
  change([](json& o) { o["status"]["phase"] = "Running"; }, "status");
  change([](json& o) { o["metadata"]["labels"]["tier"] = "db"; });
  change([](json& o) { o["status"]["phase"] = "Succeeded"; }, "status");
  auto types = [](ObjectWatcher* w, size_t want) {
    std::vector<WatchEvent> evs;
    for (int i = 0; i < 20 && evs.size() < want; ++i)
      EXPECT_TRUE(w->Next(std::chrono::milliseconds(100), &evs).ok());
    std::vector<std::string> out;
    for (const auto& ev : evs) out.push_back(ev.type);
    return out;
  };
  EXPECT_EQ(types(wl->get(), 3),
            (std::vector<std::string>{"ADDED", "MODIFIED", "DELETED"}));
  EXPECT_EQ(types(wf->get(), 3),
            (std::vector<std::string>{"ADDED", "MODIFIED", "DELETED"}));
  // Labels and phase: in once both match (Running), out at the relabel.
  EXPECT_EQ(types(wb->get(), 2),
            (std::vector<std::string>{"ADDED", "DELETED"}));
}

// What a selector reads decides how much of an old value a selected watch
// parses: the members its fields name, or everything when a field may read
// any member.
TEST_F(RegistryTest, FiltersKnowTheMembersTheyRead) {
  auto members = [&](const api::ResourceInfo& res, const std::string& labels,
                     const std::string& fields) {
    auto f = MakeFilter(res, labels, fields);
    EXPECT_TRUE(f.ok()) << f.status().message();
    return f->MembersRead(res);
  };
  using Members = std::optional<std::vector<std::string>>;
  EXPECT_EQ(members(*pods_, "", ""), Members(std::vector<std::string>{}));
  EXPECT_EQ(members(*pods_, "tier=web", "status.phase=Running"),
            Members({"metadata", "status"}));
  EXPECT_EQ(members(*pods_, "", "spec.nodeName=w1,status.phase!=Failed"),
            Members({"spec", "status"}));
  EXPECT_EQ(members(*pods_, "", "metadata.name=p"), Members({"metadata"}));
  const api::ResourceInfo* core_events =
      api::testing::BuiltinCatalog().Find("", "v1", "events");
  const api::ResourceInfo* events_v1 =
      api::testing::BuiltinCatalog().Find("events.k8s.io", "v1", "events");
  ASSERT_NE(core_events, nullptr);
  ASSERT_NE(events_v1, nullptr);
  EXPECT_EQ(members(*core_events, "", "source=kubelet"),
            Members({"source", "reportingComponent"}));
  // events.k8s.io/v1 fields are read through a conversion of the whole.
  EXPECT_EQ(members(*events_v1, "", "reason=Started"), std::nullopt);
}

TEST_F(RegistryTest, DecodeObjectMembersParsesOnlyTheMembersAsked) {
  json pod = Pod("p", {{"tier", "web"}});
  pod["status"] = {{"phase", "Running"}};
  std::string bytes = EncodeObject(*pods_, pod);
  auto got = DecodeObjectMembers(*pods_, bytes, 7, {"status", "absent"});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, (json{{"status", {{"phase", "Running"}}}}));
  auto filter = MakeFilter(*pods_, "", "status.phase=Running");
  ASSERT_TRUE(filter.ok());
  EXPECT_TRUE(filter->Matches(*pods_, *got));
  EXPECT_FALSE(
      DecodeObjectMembers(*pods_, R"({"status":{"phase":)", 7, {"status"})
          .ok());
  // Metadata comes without managedFields, which no selector reads.
  pod["metadata"]["managedFields"] = json::array({{{"manager", "m"}}});
  auto meta =
      DecodeObjectMembers(*pods_, EncodeObject(*pods_, pod), 7, {"metadata"});
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ((*meta)["metadata"]["labels"]["tier"], "web");
  EXPECT_FALSE((*meta)["metadata"].contains("managedFields"));
}

// A watch that selects by labels reads them from the stored bytes and
// hands on objects whose tree nobody has parsed: a client watch only sends
// the bytes.
TEST_F(RegistryTest, LabelSelectedWatchParsesNoObject) {
  ASSERT_TRUE(registry_->Create(*pods_, "default", Pod("p"), {}).ok());
  WatchOptions by_label;
  by_label.resource_version =
      std::to_string(registry_->storage()->CurrentRevision());
  by_label.label_selector = "tier=web";
  auto w = registry_->Watch(*pods_, "default", by_label);
  ASSERT_TRUE(w.ok());
  int n = 0;
  for (const char* tier : {"web", "web", "db"}) {
    auto r = registry_->GuaranteedUpdate(
        *pods_, "default", "p", "",
        [&](json& obj) {
          obj["metadata"]["labels"]["tier"] = tier;
          obj["metadata"]["annotations"]["n"] = std::to_string(++n);
          return Status::Ok();
        },
        {});
    ASSERT_TRUE(r.ok()) << r.status().message();
  }
  std::vector<WatchEvent> evs;
  for (int i = 0; i < 20 && evs.size() < 3; ++i)
    ASSERT_TRUE((*w)->Next(std::chrono::milliseconds(100), &evs).ok());
  std::vector<std::string> types;
  for (const auto& ev : evs) {
    types.push_back(ev.type);
    EXPECT_NE(ev.served->JsonBytes().find(R"("tier":")"), std::string::npos);
  }
  EXPECT_EQ(types, (std::vector<std::string>{"ADDED", "MODIFIED", "DELETED"}));
  ASSERT_EQ(evs.size(), 3u);
  // The next write read (and parsed) each revision but the last; the
  // watch itself parsed none.
  EXPECT_FALSE(evs[2].served->HasTree());
  // Asked for, the tree is there.
  EXPECT_EQ(evs[2].object()["metadata"]["labels"]["tier"], "db");
}

TEST_F(RegistryTest, MetadataOnlyListsAndWatchesCarryMetadataOnly) {
  ASSERT_TRUE(
      registry_->Create(*pods_, "default", Pod("a", {{"app", "x"}}), {}).ok());
  ListOptions lo;
  lo.metadata_only = true;
  lo.label_selector = "app=x";
  auto list = registry_->ListServed(*pods_, "default", lo);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->items.size(), 1u);
  const json& item = list->items[0]->value();
  EXPECT_EQ(item["kind"], "Pod");
  EXPECT_EQ(item["metadata"]["name"], "a");
  EXPECT_EQ(item["metadata"]["resourceVersion"],
            std::to_string(list->revision));
  EXPECT_FALSE(item.contains("spec"));

  WatchOptions wo;
  wo.metadata_only = true;
  wo.resource_version = std::to_string(list->revision);
  auto w = registry_->Watch(*pods_, "default", wo);
  ASSERT_TRUE(w.ok());
  auto created = registry_->Create(*pods_, "default", Pod("b"), {});
  ASSERT_TRUE(created.ok());
  std::vector<WatchEvent> evs;
  for (int i = 0; i < 20 && evs.empty(); ++i)
    ASSERT_TRUE((*w)->Next(std::chrono::milliseconds(100), &evs).ok());
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].type, "ADDED");
  EXPECT_EQ(evs[0].object()["metadata"]["uid"],
            created->object["metadata"]["uid"]);
  EXPECT_EQ(evs[0].object()["metadata"]["resourceVersion"],
            created->object["metadata"]["resourceVersion"]);

  // A field selector may name spec fields: the items are whole.
  lo.label_selector = "";
  lo.field_selector = "spec.restartPolicy=Always";
  auto by_field = registry_->ListServed(*pods_, "default", lo);
  ASSERT_TRUE(by_field.ok());
  ASSERT_EQ(by_field->items.size(), 2u);
  EXPECT_TRUE(by_field->items[0]->value().contains("spec"));
}

TEST_F(RegistryTest, GracefulDeleteThenFinalDelete) {
  json p = Pod("g");
  p["spec"]["nodeName"] = "worker-1";
  ASSERT_TRUE(registry_->Create(*pods_, "default", p, {}).ok());
  auto d = registry_->Delete(*pods_, "default", "g", {});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_FALSE(d->deleted);
  EXPECT_TRUE(d->object["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(d->object["metadata"]["deletionGracePeriodSeconds"], 30);
  DeleteOptions now;
  now.grace_period_seconds = 0;
  auto d2 = registry_->Delete(*pods_, "default", "g", now);
  ASSERT_TRUE(d2.ok());
  EXPECT_TRUE(d2->deleted);
  EXPECT_EQ(registry_->Get(*pods_, "default", "g").status().code(),
            StatusCode::kNotFound);
}

TEST_F(RegistryTest, FinalizersHoldTheObjectUntilRemoved) {
  json p = Pod("f");
  p["metadata"]["finalizers"] = {"example.com/hold"};
  ASSERT_TRUE(registry_->Create(*pods_, "default", p, {}).ok());
  DeleteOptions now;
  now.grace_period_seconds = 0;
  auto d = registry_->Delete(*pods_, "default", "f", now);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->deleted);
  auto cleared = registry_->GuaranteedUpdate(*pods_, "default", "f", "",
                                             [](json& o) {
                                               o["metadata"]["finalizers"] =
                                                   json::array();
                                               return Status::Ok();
                                             },
                                             {});
  ASSERT_TRUE(cleared.ok()) << cleared.status().ToString();
  EXPECT_EQ(registry_->Get(*pods_, "default", "f").status().code(),
            StatusCode::kNotFound);
}

TEST_F(RegistryTest, BindSetsNodeOnce) {
  ASSERT_TRUE(registry_->Create(*pods_, "default", Pod("b"), {}).ok());
  json binding = {{"metadata", {{"name", "b"}}},
                  {"target", {{"kind", "Node"}, {"name", "worker-2"}}}};
  ASSERT_TRUE(registry_->Bind("default", "b", binding, {}).ok());
  auto pod = registry_->Get(*pods_, "default", "b");
  EXPECT_EQ(pod->at("spec").at("nodeName"), "worker-2");
  auto again = registry_->Bind("default", "b", binding, {});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kConflict);
}

// A pod deleted while it is being bound: the binding gets 404 NotFound
// whichever step the delete lands between, never a 500.
TEST_F(RegistryTest, BindingAPodBeingDeletedIsNotFound) {
  constexpr int kPods = 300;
  for (int i = 0; i < kPods; ++i)
    ASSERT_TRUE(
        registry_->Create(*pods_, "default", Pod("d" + std::to_string(i)), {})
            .ok());
  std::atomic<int> unexpected{0};
  std::thread binder([&] {
    for (int i = 0; i < kPods; ++i) {
      const std::string name = "d" + std::to_string(i);
      json binding = {{"metadata", {{"name", name}}},
                      {"target", {{"kind", "Node"}, {"name", "worker-1"}}}};
      auto r = registry_->Bind("default", name, binding, {});
      if (!r.ok() && r.status().code() != StatusCode::kNotFound &&
          r.status().code() != StatusCode::kConflict)
        unexpected++;
    }
  });
  DeleteOptions now;
  now.grace_period_seconds = 0;
  for (int i = 0; i < kPods; ++i)
    (void)registry_->Delete(*pods_, "default", "d" + std::to_string(i), now);
  binder.join();
  EXPECT_EQ(unexpected.load(), 0);
}

}  // namespace
}  // namespace kmock::registry

namespace kmock::registry {
namespace {

TEST_F(RegistryTest, StrictFieldValidationRejectsUnknownFields) {
  json p = Pod("strict");
  p["spec"]["bogus"] = 1;
  WriteOptions strict;
  strict.field_validation = FieldValidation::kStrict;
  auto r = registry_->Create(*pods_, "default", p, strict);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(r.status().message(),
            "Pod in version \"v1\" cannot be handled as a Pod: strict decoding "
            "error: "
            "unknown field \"spec.bogus\"");
  std::vector<std::string> warnings;
  WriteOptions warn;
  warn.warnings = &warnings;
  ASSERT_TRUE(registry_->Create(*pods_, "default", p, warn).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "unknown field \"spec.bogus\"");

  // The server's own components build their objects typed (as Go structs
  // are): no body check, so nothing to warn about or refuse.
  warnings.clear();
  WriteOptions in_process = strict;
  in_process.typed_in_process = true;
  in_process.warnings = &warnings;
  json q = Pod("in-process");
  q["spec"]["bogus"] = 1;
  EXPECT_TRUE(registry_->Create(*pods_, "default", q, in_process).ok());
  EXPECT_TRUE(warnings.empty());
}

}  // namespace
}  // namespace kmock::registry

namespace kmock::registry {
namespace {

TEST_F(RegistryTest, NamespaceDeletionWaitsForTheFinalizeSubresource) {
  ASSERT_TRUE(
      registry_
          ->Create(*namespaces_, "", json{{"metadata", {{"name", "lab"}}}}, {})
          .ok());
  // Admitted once while active, so the terminating state below must come
  // from the namespace's change, not a first read.
  ASSERT_TRUE(registry_->Create(*pods_, "lab", Pod("early"), {}).ok());
  auto d = registry_->Delete(*namespaces_, "", "lab", {});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_FALSE(d->deleted);
  EXPECT_EQ(d->object["status"]["phase"], "Terminating");
  EXPECT_TRUE(d->object["metadata"].contains("deletionTimestamp"));

  auto in = registry_->Create(*pods_, "lab", Pod("late"), {});
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.status().code(), StatusCode::kForbidden);
  EXPECT_EQ(
      in.status().message(),
      "pods \"late\" is forbidden: unable to create new content in namespace "
      "lab because it is being terminated");

  json ns = d->object;
  ns["spec"]["finalizers"] = json::array();
  auto fin = registry_->Update(*namespaces_, "", "lab", "finalize", ns, {});
  ASSERT_TRUE(fin.ok()) << fin.status().ToString();
  EXPECT_EQ(registry_->Get(*namespaces_, "", "lab").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(registry_->Create(*pods_, "lab", Pod("gone"), {}).status().code(),
            StatusCode::kNotFound);
  ASSERT_TRUE(
      registry_
          ->Create(*namespaces_, "", json{{"metadata", {{"name", "lab"}}}}, {})
          .ok());
  EXPECT_TRUE(registry_->Create(*pods_, "lab", Pod("again"), {}).ok());
}

TEST_F(RegistryTest, SystemNamespacesCannotBeDeleted) {
  auto d = registry_->Delete(*namespaces_, "", "default", {});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kForbidden);
  EXPECT_EQ(
      d.status().message(),
      "namespaces \"default\" is forbidden: this namespace may not be deleted");
  EXPECT_TRUE(registry_->Get(*namespaces_, "", "default").ok());
}

}  // namespace
}  // namespace kmock::registry

namespace kmock::registry {
namespace {

// The scale subresource is generic: any kind that declares where its
// replicas live gets an autoscaling/v1 Scale view (here a Service copy,
// written as in-process writers write: the Service schema has no replicas,
// so a client's write would have them pruned).
TEST_F(RegistryTest, ScaleSubresourceReadsAndWritesReplicas) {
  WriteOptions typed;
  typed.typed_in_process = true;
  api::ResourceInfo scalable =
      *api::testing::BuiltinCatalog().Find("", "v1", "services");
  scalable.key_prefix = "/registry/scaletest/";
  scalable.make_allocator = nullptr;
  scalable.scale = api::ScaleSubresource{};
  scalable.scale->selector_path = "spec.podSelector";
  json svc = {{"metadata", {{"name", "web"}}},
              {"spec",
               {{"replicas", 2},
                {"podSelector", {{"matchLabels", {{"app", "web"}}}}},
                {"ports", {{{"port", 80}}}}}}};
  ASSERT_TRUE(registry_->Create(scalable, "default", svc, typed).ok());
  auto sc = registry_->Get(scalable, "default", "web", "scale");
  ASSERT_TRUE(sc.ok()) << sc.status().ToString();
  EXPECT_EQ((*sc)["kind"], "Scale");
  EXPECT_EQ((*sc)["apiVersion"], "autoscaling/v1");
  EXPECT_EQ((*sc)["spec"]["replicas"], 2);
  EXPECT_EQ((*sc)["status"]["selector"], "app=web");

  auto p = registry_->Patch(scalable, "default", "web", "scale",
                            PatchType::kMergePatch,
                            R"({"spec":{"replicas":5}})", typed);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->object["spec"]["replicas"], 5);
  EXPECT_EQ((*registry_->Get(scalable, "default", "web"))["spec"]["replicas"],
            5);

  auto neg = registry_->Patch(scalable, "default", "web", "scale",
                              PatchType::kMergePatch,
                              R"({"spec":{"replicas":-1}})", typed);
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(neg.status().message(),
            "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid "
            "value: -1: must "
            "be greater than or equal to 0");
  EXPECT_EQ((*registry_->Get(scalable, "default", "web"))["spec"]["replicas"],
            5);
  EXPECT_EQ(registry_->Get(*pods_, "default", "x", "scale").status().code(),
            StatusCode::kNotFound);
}

}  // namespace
}  // namespace kmock::registry

namespace kmock::registry {
namespace {

TEST_F(RegistryTest, CompactedContinueTokenGets410WithAnInconsistentToken) {
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(
        registry_->Create(*pods_, "default", Pod("c" + std::to_string(i)), {})
            .ok());
  ListOptions page;
  page.limit = 1;
  auto p1 = registry_->List(*pods_, "default", page);
  ASSERT_TRUE(p1.ok());
  ASSERT_TRUE(registry_->Create(*pods_, "default", Pod("c9"), {}).ok());
  ASSERT_TRUE(storage_->Compact(storage_->CurrentRevision()).ok());
  page.continue_token = p1->at("metadata").at("continue");
  auto p2 = registry_->List(*pods_, "default", page);
  ASSERT_FALSE(p2.ok());
  EXPECT_EQ(p2.status().code(), StatusCode::kExpired);
  EXPECT_EQ(p2.status().message().rfind(
                "The provided continue parameter is too old", 0),
            0u);
  ASSERT_FALSE(p2.status().list_continue().empty());
  // The offered token continues after c0 at the newest revision.
  page.continue_token = p2.status().list_continue();
  page.limit = 10;
  auto rest = registry_->List(*pods_, "default", page);
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  ASSERT_EQ(rest->at("items").size(), 3u);
  EXPECT_EQ(rest->at("items")[0]["metadata"]["name"], "c1");
  EXPECT_EQ(rest->at("items")[2]["metadata"]["name"], "c9");
}

}  // namespace
}  // namespace kmock::registry

namespace kmock::registry {
namespace {

// managedFields: an applier's entry survives another manager's status write,
// and a second applier that changes an owned field conflicts.
TEST_F(RegistryTest, ServerSideApplyOwnershipSurvivesStatusWrites) {
  const api::ResourceInfo* deploys =
      api::testing::BuiltinCatalog().Find("apps", "v1", "deployments");
  ASSERT_NE(deploys, nullptr);
  const std::string manifest = R"({"apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"ssa"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"ssa"}},
    "template":{"metadata":{"labels":{"app":"ssa"}},"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}}})";
  WriteOptions kubectl;
  kubectl.field_manager = "kubectl";
  auto created = registry_->Patch(*deploys, "default", "ssa", "",
                                  PatchType::kApply, manifest, kubectl);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(created->created);

  WriteOptions kcm;
  kcm.field_manager = "kube-controller-manager";
  auto st = registry_->GuaranteedUpdate(
      *deploys, "default", "ssa", "status",
      [](json& d) {
        d["status"]["replicas"] = 0;
        d["status"]["observedGeneration"] = 1;
        return Status::Ok();
      },
      kcm);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  std::vector<std::string> managers;
  for (const auto& m : (*st)["metadata"]["managedFields"])
    managers.push_back(m["manager"].get<std::string>() + "/" +
                       m["operation"].get<std::string>());
  EXPECT_EQ(managers, (std::vector<std::string>{
                          "kubectl/Apply", "kube-controller-manager/Update"}));

  std::string four = manifest;
  four.replace(four.find("\"replicas\":2"), 12, "\"replicas\":4");
  WriteOptions other;
  other.field_manager = "other";
  auto conflict = registry_->Patch(*deploys, "default", "ssa", "",
                                   PatchType::kApply, four, other);
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.status().code(), StatusCode::kConflict);
  EXPECT_EQ(conflict.status().message(),
            "Apply failed with 1 conflict: conflict with \"kubectl\": "
            ".spec.replicas");
  other.force = true;
  auto forced = registry_->Patch(*deploys, "default", "ssa", "",
                                 PatchType::kApply, four, other);
  ASSERT_TRUE(forced.ok()) << forced.status().ToString();
  EXPECT_EQ(forced->object["spec"]["replicas"], 4);
}

}  // namespace
}  // namespace kmock::registry
