// The Storage conformance suite: every backend must pass it. It runs
// against the on-disk store (in a temporary directory) and the in-memory
// one.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/storage.h"
#include "store/storage_test_util.h"

namespace kmock::store {
namespace {

using std::chrono::milliseconds;
using testing::CodeName;
using testing::EventsString;
using testing::KvFullString;
using testing::KvString;
using testing::ListString;

enum class Backend { kDisk, kMemory };

class StorageConformanceTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { Reopen(StorageOptions()); }

  // Opens a fresh store with these options (path and in_memory are set
  // here). Compaction is off unless the options ask for it.
  void Reopen(StorageOptions options, bool keep_interval = false) {
    store_.reset();
    options.in_memory = GetParam() == Backend::kMemory;
    options.path = options.in_memory
                       ? ""
                       : dir_.path() + "/db" + std::to_string(opened_++);
    if (!keep_interval) options.compaction_interval = milliseconds(0);
    auto opened = OpenRocksStorage(options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(opened).value();
  }

  int64_t Put(const std::string& key, const std::string& value) {
    auto got = store_->Get(key);
    auto r =
        got.ok() ? store_->Update(key, value, 0) : store_->Create(key, value);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->mod_revision : -1;
  }

  int64_t Del(const std::string& key) {
    auto r = store_->Delete(key, 0);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->mod_revision : -1;
  }

  std::string ListAt(const std::string& prefix, int64_t revision,
                     int64_t limit = 0, const std::string& start = "") {
    ListOptions o;
    o.prefix = prefix;
    o.revision = revision;
    o.limit = limit;
    o.start_key = start;
    auto r = store_->List(o);
    if (!r.ok()) return CodeName(r);
    return ListString(*r);
  }

  // Collects events until `count` arrived or `timeout` passed.
  static std::string Collect(Watcher* w, size_t count,
                             milliseconds timeout = milliseconds(2000)) {
    std::vector<EventPtr> events;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (events.size() < count &&
           std::chrono::steady_clock::now() < deadline) {
      Status s = w->Next(milliseconds(50), &events);
      if (!s.ok()) return EventsString(events) + " !" + CodeName(s);
    }
    return EventsString(events);
  }

  testing::TempDir dir_;
  int opened_ = 0;
  std::unique_ptr<Storage> store_;
};

TEST_P(StorageConformanceTest, RevisionsStartAtOneAndGrowByOnePerWrite) {
  EXPECT_EQ(store_->CurrentRevision(), 0);
  auto a = store_->Create("/a", "1");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(KvFullString(*a), "/a=1 c1 m1 v1");
  auto b = store_->Create("/b", "2");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(KvFullString(*b), "/b=2 c2 m2 v1");
  EXPECT_EQ(store_->CurrentRevision(), 2);
  auto got = store_->Get("/a");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(KvFullString(*got), "/a=1 c1 m1 v1");
}

TEST_P(StorageConformanceTest, CreateOnlyIfAbsent) {
  ASSERT_TRUE(store_->Create("/a", "1").ok());
  EXPECT_EQ(CodeName(store_->Create("/a", "2")), "AlreadyExists");
  EXPECT_EQ(KvString(*store_->Get("/a")), "/a=1@1");
  EXPECT_EQ(store_->CurrentRevision(), 1);
  EXPECT_EQ(CodeName(store_->Get("/missing")), "NotFound");
  EXPECT_EQ(CodeName(store_->Create("", "x")), "BadRequest");
  EXPECT_EQ(CodeName(store_->Create(std::string("/a\0b", 4), "x")),
            "BadRequest");
}

TEST_P(StorageConformanceTest, UpdateComparesModRevision) {
  ASSERT_TRUE(store_->Create("/a", "1").ok());      // rev 1
  ASSERT_TRUE(store_->Create("/other", "x").ok());  // rev 2
  EXPECT_EQ(CodeName(store_->Update("/a", "2", 2)), "Conflict");
  auto u = store_->Update("/a", "2", 1);  // rev 3
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(KvFullString(*u), "/a=2 c1 m3 v2");
  EXPECT_EQ(CodeName(store_->Update("/a", "3", 1)), "Conflict");
  auto unconditional = store_->Update("/a", "3", 0);  // rev 4
  ASSERT_TRUE(unconditional.ok());
  EXPECT_EQ(KvFullString(*unconditional), "/a=3 c1 m4 v3");
  EXPECT_EQ(CodeName(store_->Update("/missing", "1", 0)), "NotFound");
  EXPECT_EQ(store_->CurrentRevision(), 4);
}

TEST_P(StorageConformanceTest, IdenticalUpdateWritesNothing) {
  ASSERT_TRUE(store_->Create("/a", "same").ok());
  auto w = store_->Watch("/", 0);
  ASSERT_TRUE(w.ok());
  auto u = store_->Update("/a", "same", 1);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(KvFullString(*u), "/a=same c1 m1 v1");
  EXPECT_EQ(store_->CurrentRevision(), 1);
  ASSERT_TRUE(store_->Update("/a", "new", 0).ok());
  EXPECT_EQ(Collect(w->get(), 1), "PUT /a=new@2 prev=same");
}

TEST_P(StorageConformanceTest, DeleteComparesAndReturnsLastValue) {
  ASSERT_TRUE(store_->Create("/a", "1").ok());     // 1
  ASSERT_TRUE(store_->Update("/a", "2", 1).ok());  // 2
  EXPECT_EQ(CodeName(store_->Delete("/a", 1)), "Conflict");
  auto d = store_->Delete("/a", 2);  // 3
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(KvFullString(*d), "/a=2 c1 m3 v2");
  EXPECT_EQ(CodeName(store_->Get("/a")), "NotFound");
  EXPECT_EQ(CodeName(store_->Delete("/a", 0)), "NotFound");
  auto again = store_->Create("/a", "new");  // 4
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(KvFullString(*again), "/a=new c4 m4 v1");
}

TEST_P(StorageConformanceTest, ListFiltersByPrefixInKeyOrder) {
  Put("/r/pods/b", "1");
  Put("/r/pods/a", "2");
  Put("/r/podsx/c", "3");
  Put("/r/nodes/n", "4");
  EXPECT_EQ(ListAt("/r/pods/", 0), "/r/pods/a=2@2 /r/pods/b=1@1 @rev=4");
  EXPECT_EQ(ListAt("/r/pods", 0),
            "/r/pods/a=2@2 /r/pods/b=1@1 /r/podsx/c=3@3 @rev=4");
  EXPECT_EQ(ListAt("", 0),
            "/r/nodes/n=4@4 /r/pods/a=2@2 /r/pods/b=1@1 /r/podsx/c=3@3 "
            "@rev=4");
  EXPECT_EQ(ListAt("/none/", 0), "@rev=4");
  EXPECT_EQ(ListAt("/r/pods/", 0, 0, "/r/nodes/"), "BadRequest");
}

TEST_P(StorageConformanceTest, ListAtOldRevisionsShowsPastState) {
  Put("/k/a", "1");    // 1
  Put("/k/b", "1");    // 2
  Put("/k/a", "2");    // 3
  Del("/k/b");         // 4
  Put("/k/c", "1");    // 5
  Put("/k/b", "new");  // 6
  EXPECT_EQ(ListAt("/k/", 1), "/k/a=1@1 @rev=1");
  EXPECT_EQ(ListAt("/k/", 2), "/k/a=1@1 /k/b=1@2 @rev=2");
  EXPECT_EQ(ListAt("/k/", 3), "/k/a=2@3 /k/b=1@2 @rev=3");
  EXPECT_EQ(ListAt("/k/", 4), "/k/a=2@3 @rev=4");
  EXPECT_EQ(ListAt("/k/", 5), "/k/a=2@3 /k/c=1@5 @rev=5");
  EXPECT_EQ(ListAt("/k/", 6), "/k/a=2@3 /k/b=new@6 /k/c=1@5 @rev=6");
  EXPECT_EQ(ListAt("/k/", 0), "/k/a=2@3 /k/b=new@6 /k/c=1@5 @rev=6");
  EXPECT_EQ(ListAt("/k/", 7), "FutureRevision");
}

TEST_P(StorageConformanceTest, ListPaginatesWithLimitAndStartKey) {
  for (char c = 'a'; c <= 'e'; ++c) Put(std::string("/p/") + c, "1");
  EXPECT_EQ(ListAt("/p/", 0, 2), "/p/a=1@1 /p/b=1@2 @rev=5 more=3");
  EXPECT_EQ(ListAt("/p/", 0, 2, "/p/b\x01"), "/p/c=1@3 /p/d=1@4 @rev=5 more=1");
  EXPECT_EQ(ListAt("/p/", 0, 2, "/p/d\x01"), "/p/e=1@5 @rev=5");
  EXPECT_EQ(ListAt("/p/", 3, 2, "/p/b"), "/p/b=1@2 /p/c=1@3 @rev=3");
  EXPECT_EQ(ListAt("/p/", 4, 1, "/p/b"), "/p/b=1@2 @rev=4 more=2");
}

// A continue token's next key is "<last key>\0": at an old revision it must
// start after the last key, not at it.
TEST_P(StorageConformanceTest, StartKeyEndingInNulSkipsThatKeyAtOldRevisions) {
  for (char c = 'a'; c <= 'c'; ++c) Put(std::string("/p/") + c, "1");
  Put("/p/d", "1");
  EXPECT_EQ(ListAt("/p/", 3, 2, std::string("/p/a\0", 5)),
            "/p/b=1@2 /p/c=1@3 @rev=3");
  EXPECT_EQ(ListAt("/p/", 0, 2, std::string("/p/a\0", 5)),
            "/p/b=1@2 /p/c=1@3 @rev=4 more=1");
}

// Scan hands over what List returns, as views; an error from the visit
// ends it at once and comes back as it is.
TEST_P(StorageConformanceTest, ScanVisitsWhatListReturns) {
  for (int i = 0; i < 6; ++i) Put("/s/" + std::to_string(i), "v1");  // 1-6
  Put("/s/2", "v2");                                                 // 7
  const int64_t old = store_->CurrentRevision();
  Put("/s/3", "v3");  // 8: read from history at `old`
  Del("/s/4");        // 9
  for (int64_t revision : {int64_t{0}, old}) {
    for (int64_t limit : {int64_t{0}, int64_t{2}}) {
      ListOptions o;
      o.prefix = "/s/";
      o.revision = revision;
      o.limit = limit;
      o.start_key = "/s/1";
      o.count_remaining = true;
      auto listed = store_->List(o);
      ASSERT_TRUE(listed.ok());
      ListResult scanned_list;
      auto scanned = store_->Scan(o, [&](const KeyValueView& kv) {
        KeyValue copy{std::string(kv.key), std::string(kv.value),
                      kv.create_revision, kv.mod_revision, kv.version};
        scanned_list.items.push_back(copy);
        return Status::Ok();
      });
      ASSERT_TRUE(scanned.ok());
      scanned_list.revision = scanned->revision;
      scanned_list.more = scanned->more;
      scanned_list.remaining = scanned->remaining;
      EXPECT_EQ(ListString(scanned_list), ListString(*listed))
          << "revision " << revision << " limit " << limit;
      ASSERT_EQ(scanned_list.items.size(), listed->items.size());
      for (size_t i = 0; i < listed->items.size(); ++i) {
        EXPECT_EQ(KvFullString(scanned_list.items[i]),
                  KvFullString(listed->items[i]));
      }
    }
  }
  int visits = 0;
  ListOptions all;
  all.prefix = "/s/";
  auto stopped = store_->Scan(all, [&](const KeyValueView&) {
    ++visits;
    return Status(StatusCode::kInvalid, "stop here");
  });
  EXPECT_EQ(visits, 1);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(stopped.status().message(), "stop here");
}

TEST_P(StorageConformanceTest,
       PaginatedListAtPinnedRevisionIgnoresLaterWrites) {
  for (int i = 0; i < 10; ++i) Put("/p/" + std::to_string(i), "v1");
  int64_t pinned = store_->CurrentRevision();
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    int n = 0;
    while (!stop) {
      std::string key = "/p/" + std::to_string(n % 12);
      auto got = store_->Get(key);
      if (got.ok() && n % 5 == 0) {
        (void)store_->Delete(key, 0);
      } else if (got.ok()) {
        (void)store_->Update(key, "v" + std::to_string(n), 0);
      } else {
        (void)store_->Create(key, "late");
      }
      ++n;
    }
  });
  // The pages must be read while later writes exist: on a busy machine the
  // writer may not have committed anything yet.
  while (store_->CurrentRevision() == pinned) std::this_thread::yield();
  std::vector<std::string> seen;
  std::string start;
  for (;;) {
    ListOptions o;
    o.prefix = "/p/";
    o.revision = pinned;
    o.limit = 3;
    o.start_key = start;
    auto page = store_->List(o);
    if (!page.ok()) {
      ADD_FAILURE() << page.status().ToString();
      break;
    }
    EXPECT_EQ(page->revision, pinned);
    for (const KeyValue& kv : page->items) seen.push_back(KvString(kv));
    EXPECT_EQ(page->more, page->remaining > 0);
    if (!page->more) break;
    start = page->items.back().key + '\x01';
    std::this_thread::sleep_for(milliseconds(2));
  }
  stop = true;
  writer.join();
  std::vector<std::string> want;
  for (int i : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
    want.push_back("/p/" + std::to_string(i) + "=v1@" + std::to_string(i + 1));
  }
  EXPECT_EQ(seen, want);
  EXPECT_GT(store_->CurrentRevision(), pinned);
}

// Pages at a pinned revision while keys around the page boundaries are
// updated, deleted and created after it.
TEST_P(StorageConformanceTest,
       PagesAtOldRevisionIgnoreLaterWritesAtBoundaries) {
  for (char c = 'a'; c <= 'f'; ++c) Put(std::string("/q/") + c, "1");  // 1-6
  Put("/q/b", "2");  // 7: a key with history before the pin
  const int64_t pinned = store_->CurrentRevision();  // 7
  EXPECT_EQ(ListAt("/q/", pinned, 2), "/q/a=1@1 /q/b=2@7 @rev=7 more=4");
  Put("/q/b", "3");    // 8: the last item of page 1
  Del("/q/c");         // 9: the first item of page 2
  Put("/q/bb", "1");   // 10: created inside the gap between the pages
  Del("/q/f");         // 11: the last key
  Put("/q/g", "1");    // 12: created after the end
  Del("/q/a");         // 13: before the start key
  Put("/q/c", "new");  // 14: recreated after its delete
  EXPECT_EQ(ListAt("/q/", pinned, 2, std::string("/q/b\0", 5)),
            "/q/c=1@3 /q/d=1@4 @rev=7 more=2");
  EXPECT_EQ(ListAt("/q/", pinned, 2, std::string("/q/d\0", 5)),
            "/q/e=1@5 /q/f=1@6 @rev=7");
  EXPECT_EQ(ListAt("/q/", pinned, 3, "/q/b"),
            "/q/b=2@7 /q/c=1@3 /q/d=1@4 @rev=7 more=2");
  EXPECT_EQ(ListAt("/q/", pinned), ListAt("/q/", pinned, 100));
  EXPECT_EQ(ListAt("/q/", pinned),
            "/q/a=1@1 /q/b=2@7 /q/c=1@3 /q/d=1@4 /q/e=1@5 /q/f=1@6 @rev=7");
  // The same walk one revision later sees /q/b's update only.
  EXPECT_EQ(ListAt("/q/", 8, 2), "/q/a=1@1 /q/b=3@8 @rev=8 more=4");
  EXPECT_EQ(ListAt("/q/", 10, 3, std::string("/q/a\0", 5)),
            "/q/b=3@8 /q/bb=1@10 /q/d=1@4 @rev=10 more=2");
  EXPECT_EQ(ListAt("/q/", 0),
            "/q/b=3@8 /q/bb=1@10 /q/c=new@14 /q/d=1@4 /q/e=1@5 /q/g=1@12 "
            "@rev=14");
}

// Remaining counts at an older revision count the keys that existed then:
// keys deleted since still count, keys created since do not.
TEST_P(StorageConformanceTest, RemainingCountsAtOldRevisionCountKeysOfThen) {
  for (int i = 0; i < 8; ++i) Put("/r/" + std::to_string(i), "1");  // 1-8
  const int64_t pinned = store_->CurrentRevision();
  Del("/r/5");
  Del("/r/6");
  Put("/r/55", "1");
  Put("/r/9", "1");
  Put("/r/7", "2");
  EXPECT_EQ(ListAt("/r/", pinned, 1), "/r/0=1@1 @rev=8 more=7");
  EXPECT_EQ(ListAt("/r/", pinned, 4, "/r/2"),
            "/r/2=1@3 /r/3=1@4 /r/4=1@5 /r/5=1@6 @rev=8 more=2");
  EXPECT_EQ(ListAt("/r/", pinned, 1, "/r/6"), "/r/6=1@7 @rev=8 more=1");
  EXPECT_EQ(ListAt("/r/", 0, 1), "/r/0=1@1 @rev=13 more=7");
  EXPECT_EQ(ListAt("/r/", 0, 5, "/r/5"),
            "/r/55=1@11 /r/7=2@13 /r/9=1@12 @rev=13");
}

// A continue token's start key "<last>\0" at an old revision, when <last>
// itself was rewritten or deleted after that revision.
TEST_P(StorageConformanceTest, StartKeyEndingInNulAtOldRevisionAfterWrites) {
  for (char c = 'a'; c <= 'd'; ++c) Put(std::string("/s/") + c, "1");  // 1-4
  Put("/s/a", "2");                                                    // 5
  Del("/s/b");                                                         // 6
  EXPECT_EQ(ListAt("/s/", 4, 1, std::string("/s/a\0", 5)),
            "/s/b=1@2 @rev=4 more=2");
  EXPECT_EQ(ListAt("/s/", 4, 2, std::string("/s/b\0", 5)),
            "/s/c=1@3 /s/d=1@4 @rev=4");
  EXPECT_EQ(ListAt("/s/", 5, 5, std::string("/s/a\0", 5)),
            "/s/b=1@2 /s/c=1@3 /s/d=1@4 @rev=5");
  EXPECT_EQ(ListAt("/s/", 0, 5, std::string("/s/a\0", 5)),
            "/s/c=1@3 /s/d=1@4 @rev=6");
}

// Pages at a revision above a compaction, with writes on both sides of it.
TEST_P(StorageConformanceTest, PagesAtOldRevisionAfterCompaction) {
  Put("/t/a", "1");  // 1
  Put("/t/b", "1");  // 2
  Put("/t/a", "2");  // 3
  Put("/t/c", "1");  // 4
  Del("/t/b");       // 5
  Put("/t/d", "1");  // 6
  ASSERT_TRUE(store_->Compact(4).ok());
  Put("/t/a", "3");  // 7
  Del("/t/c");       // 8
  EXPECT_EQ(ListAt("/t/", 5, 1), "/t/a=2@3 @rev=5 more=1");
  EXPECT_EQ(ListAt("/t/", 5, 1, std::string("/t/a\0", 5)), "/t/c=1@4 @rev=5");
  EXPECT_EQ(ListAt("/t/", 6, 2), "/t/a=2@3 /t/c=1@4 @rev=6 more=1");
  EXPECT_EQ(ListAt("/t/", 7, 2), "/t/a=3@7 /t/c=1@4 @rev=7 more=1");
  EXPECT_EQ(ListAt("/t/", 4), "Compacted");
}

// Every page of every walk, at every revision and page size, against a
// model of the history, after a mixed, seeded sequence of writes.
TEST_P(StorageConformanceTest, PagedWalksMatchAModelAtEveryRevision) {
  // model[r] = the key set at revision r.
  std::vector<std::map<std::string, std::string>> model(1);
  uint64_t state = 12345;
  auto next = [&state](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  while (model.size() < 60) {
    std::string key = "/m/" + std::string(1, static_cast<char>('a' + next(9)));
    if (next(3) == 0) key += "x";  // keys that are prefixes of others
    std::map<std::string, std::string> now = model.back();
    int64_t rev;
    if (now.count(key) != 0 && next(3) == 0) {
      rev = Del(key);
      now.erase(key);
    } else {
      std::string value = "v" + std::to_string(model.size());
      rev = Put(key, value);
      now[key] = value + "@" + std::to_string(rev);
    }
    ASSERT_EQ(rev, static_cast<int64_t>(model.size()));
    model.push_back(std::move(now));
  }
  Put("/n/other", "1");  // a write outside the prefix
  for (int64_t rev = 1; rev < static_cast<int64_t>(model.size()); ++rev) {
    for (int64_t limit : {1, 2, 3, 5, 100}) {
      std::string start;
      std::vector<std::pair<std::string, std::string>> want(model[rev].begin(),
                                                            model[rev].end());
      size_t seen = 0;
      for (int page = 0;; ++page) {
        ASSERT_LT(page, 100);
        ListOptions o;
        o.prefix = "/m/";
        o.revision = rev;
        o.limit = limit;
        o.start_key = start;
        // A walker that does not ask for the count gets the same pages.
        o.count_remaining = page % 3 != 1;
        auto r = store_->List(o);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        std::string got, expected;
        for (const KeyValue& kv : r->items) got += KvString(kv) + " ";
        for (size_t i = seen; i < want.size() && i < seen + limit; ++i) {
          expected += want[i].first + "=" + want[i].second + " ";
        }
        seen += r->items.size();
        int64_t remaining = static_cast<int64_t>(want.size() - seen);
        ASSERT_EQ(got, expected) << "rev " << rev << " limit " << limit;
        ASSERT_EQ(r->remaining, o.count_remaining ? remaining : 0)
            << "rev " << rev << " limit " << limit;
        ASSERT_EQ(r->more, remaining > 0);
        if (!r->more) break;
        start = r->items.back().key + (page % 2 == 0 ? '\0' : '\x01');
      }
      ASSERT_EQ(seen, want.size());
    }
  }
}

TEST_P(StorageConformanceTest, CompactionDropsOldRevisionsButKeepsLiveKeys) {
  Put("/c/a", "1");  // 1
  Put("/c/b", "1");  // 2
  Put("/c/a", "2");  // 3
  Del("/c/b");       // 4
  Put("/c/c", "1");  // 5
  EXPECT_EQ(ListAt("/c/", 4), "/c/a=2@3 @rev=4");
  std::string at5 = ListAt("/c/", 5);
  ASSERT_TRUE(store_->Compact(4).ok());
  EXPECT_EQ(store_->CompactedRevision(), 4);
  EXPECT_EQ(ListAt("/c/", 3), "Compacted");
  EXPECT_EQ(ListAt("/c/", 4), "Compacted");
  EXPECT_EQ(ListAt("/c/", 5), at5);
  Put("/c/c", "2");  // 6
  EXPECT_EQ(ListAt("/c/", 5), at5);
  EXPECT_EQ(ListAt("/c/", 0), "/c/a=2@3 /c/c=2@6 @rev=6");
  EXPECT_EQ(CodeName(store_->Compact(4)), "Compacted");
  EXPECT_EQ(CodeName(store_->Compact(3)), "Compacted");
  EXPECT_EQ(CodeName(store_->Compact(7)), "FutureRevision");
  // Compacting to the current revision keeps every live key readable, and a
  // list at the current revision is always allowed.
  ASSERT_TRUE(store_->Compact(6).ok());
  EXPECT_EQ(ListAt("/c/", 6), "/c/a=2@3 /c/c=2@6 @rev=6");
  EXPECT_EQ(ListAt("/c/", 0), "/c/a=2@3 /c/c=2@6 @rev=6");
  EXPECT_EQ(KvFullString(*store_->Get("/c/a")), "/c/a=2 c1 m3 v2");
}

TEST_P(StorageConformanceTest, CompactionKeepsStateOfOldKeysForLaterReads) {
  Put("/o/a", "1");  // 1, never touched again
  Put("/o/b", "1");  // 2
  Put("/o/b", "2");  // 3
  Put("/o/b", "3");  // 4
  Put("/o/c", "1");  // 5
  ASSERT_TRUE(store_->Compact(3).ok());
  EXPECT_EQ(ListAt("/o/", 4), "/o/a=1@1 /o/b=3@4 @rev=4");
  Del("/o/a");  // 6
  ASSERT_TRUE(store_->Compact(5).ok());
  EXPECT_EQ(ListAt("/o/", 6), "/o/b=3@4 /o/c=1@5 @rev=6");
}

TEST_P(StorageConformanceTest, WatchFromNowSeesLaterEventsUnderPrefix) {
  Put("/w/a", "0");
  auto w = store_->Watch("/w/", 0);
  ASSERT_TRUE(w.ok());
  Put("/w/a", "1");      // 2
  Put("/other/x", "1");  // 3
  Put("/w/b", "1");      // 4
  Del("/w/a");           // 5
  EXPECT_EQ(Collect(w->get(), 3),
            "PUT /w/a=1@2 prev=0, PUT /w/b=1@4, DELETE /w/a@5 prev=1");
  std::vector<EventPtr> events;
  ASSERT_TRUE((*w)->Next(milliseconds(0), &events).ok());
  EXPECT_TRUE(events.empty());
}

TEST_P(StorageConformanceTest, ReadyCallbackTellsOfEventsAndTheEnd) {
  auto w = store_->Watch("/w/", 0);
  ASSERT_TRUE(w.ok());
  std::atomic<int> calls{0};
  (*w)->SetReadyCallback([&calls] { calls++; });
  Put("/other/x", "1");  // not under the prefix: no call
  EXPECT_EQ(calls.load(), 0);
  Put("/w/a", "1");
  EXPECT_EQ(calls.load(), 1);  // before the write returned
  EXPECT_EQ(Collect(w->get(), 1), "PUT /w/a=1@2");
  (*w)->SetReadyCallback(nullptr);
  Put("/w/b", "1");
  EXPECT_EQ(calls.load(), 1);
  (*w)->SetReadyCallback([&calls] { calls += 10; });
  (*w)->Stop();
  EXPECT_EQ(calls.load(), 11);  // the end is news too
}

TEST_P(StorageConformanceTest, IdleProgressCoversCommitsUnderOtherPrefixes) {
  Put("/w/a", "0");  // 1
  auto w = store_->Watch("/w/", 0);
  ASSERT_TRUE(w.ok());
  Put("/w/a", "1");  // 2: queued, so no progress can be claimed yet
  EXPECT_EQ((*w)->IdleProgressRevision(), 0);
  EXPECT_EQ(Collect(w->get(), 1), "PUT /w/a=1@2 prev=0");
  EXPECT_EQ((*w)->IdleProgressRevision(), 2);
  Put("/other/x", "1");  // 3
  Put("/other/y", "1");  // 4
  // Nothing under /w/ happened through revision 4.
  EXPECT_EQ((*w)->IdleProgressRevision(), 4);
}

TEST_P(StorageConformanceTest, DeleteEventCarriesLastValueAndRevisions) {
  ASSERT_TRUE(store_->Create("/a", "x").ok());
  ASSERT_TRUE(store_->Update("/a", "y", 0).ok());
  auto w = store_->Watch("/a", 0);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(store_->Delete("/a", 0).ok());
  std::vector<EventPtr> events;
  ASSERT_TRUE((*w)->Next(milliseconds(2000), &events).ok());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]->type, Event::Type::kDelete);
  EXPECT_EQ(KvFullString(events[0]->kv), "/a=y c1 m3 v2");
  EXPECT_EQ(events[0]->revision, 3);
}

TEST_P(StorageConformanceTest, WatchFromRevisionReplaysThenFollows) {
  Put("/w/a", "1");  // 1
  Put("/w/b", "1");  // 2
  Put("/x/c", "1");  // 3
  Put("/w/a", "2");  // 4
  auto w = store_->Watch("/w/", 1);
  ASSERT_TRUE(w.ok());
  Put("/w/b", "2");  // 5
  EXPECT_EQ(Collect(w->get(), 3),
            "PUT /w/b=1@2, PUT /w/a=2@4 prev=1, PUT /w/b=2@5 prev=1");
  auto at_current = store_->Watch("/w/", 5);
  ASSERT_TRUE(at_current.ok());
  Put("/w/a", "3");  // 6
  EXPECT_EQ(Collect(at_current->get(), 1), "PUT /w/a=3@6 prev=2");
  EXPECT_EQ(CodeName(store_->Watch("/w/", 7)), "FutureRevision");
}

TEST_P(StorageConformanceTest, WatchFromCompactedRevisionFails) {
  for (int i = 0; i < 5; ++i) Put("/w/a", std::to_string(i));
  ASSERT_TRUE(store_->Compact(3).ok());
  EXPECT_EQ(CodeName(store_->Watch("/w/", 2)), "Compacted");
  EXPECT_EQ(CodeName(store_->Watch("/w/", 1)), "Compacted");
  // after_revision == compacted: every event after it is still there.
  auto w = store_->Watch("/w/", 3);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(Collect(w->get(), 2), "PUT /w/a=3@4 prev=2, PUT /w/a=4@5 prev=3");
}

TEST_P(StorageConformanceTest, NextWaitsForTimeoutWhenIdle) {
  auto w = store_->Watch("/", 0);
  ASSERT_TRUE(w.ok());
  auto start = std::chrono::steady_clock::now();
  std::vector<EventPtr> events;
  ASSERT_TRUE((*w)->Next(milliseconds(100), &events).ok());
  EXPECT_TRUE(events.empty());
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(90));
}

TEST_P(StorageConformanceTest, StopWakesABlockedNext) {
  auto w = store_->Watch("/", 0);
  ASSERT_TRUE(w.ok());
  Status result;
  auto start = std::chrono::steady_clock::now();
  std::thread t([&] {
    std::vector<EventPtr> events;
    result = (*w)->Next(milliseconds(10000), &events);
  });
  std::this_thread::sleep_for(milliseconds(50));
  (*w)->Stop();
  t.join();
  EXPECT_EQ(CodeName(result), "ServiceUnavailable");
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(5000));
  (*w)->Stop();  // idempotent
}

TEST_P(StorageConformanceTest, CloseEndsWatchersAndRefusesCalls) {
  Put("/a", "1");
  auto w = store_->Watch("/", 0);
  ASSERT_TRUE(w.ok());
  Status result;
  std::thread t([&] {
    std::vector<EventPtr> events;
    result = (*w)->Next(milliseconds(10000), &events);
  });
  std::this_thread::sleep_for(milliseconds(50));
  store_->Close();
  t.join();
  EXPECT_EQ(CodeName(result), "ServiceUnavailable");
  EXPECT_EQ(CodeName(store_->Get("/a")), "ServiceUnavailable");
  EXPECT_EQ(CodeName(store_->Create("/b", "1")), "ServiceUnavailable");
  EXPECT_EQ(ListAt("/", 0), "ServiceUnavailable");
  EXPECT_EQ(CodeName(store_->Watch("/", 0)), "ServiceUnavailable");
  EXPECT_EQ(CodeName(store_->Compact(1)), "ServiceUnavailable");
  store_->Close();  // idempotent
}

TEST_P(StorageConformanceTest, ConcurrentWritersGetUniqueOrderedRevisions) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 100;
  auto all = store_->Watch("/", 0);
  auto half = store_->Watch("/t/3", 0);
  ASSERT_TRUE(all.ok());
  ASSERT_TRUE(half.ok());
  std::vector<std::vector<int64_t>> revisions(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto r = store_->Create(
            "/t/" + std::to_string(t) + "/" + std::to_string(i), "v");
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        revisions[t].push_back(r->mod_revision);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::set<int64_t> unique;
  for (const auto& per_thread : revisions) {
    for (size_t i = 1; i < per_thread.size(); ++i) {
      EXPECT_LT(per_thread[i - 1], per_thread[i]);
    }
    unique.insert(per_thread.begin(), per_thread.end());
  }
  EXPECT_EQ(unique.size(), size_t{kThreads * kPerThread});
  EXPECT_EQ(*unique.begin(), 1);
  EXPECT_EQ(*unique.rbegin(), kThreads * kPerThread);
  EXPECT_EQ(store_->CurrentRevision(), kThreads * kPerThread);

  // Every event arrives once, in revision order, with its revision.
  std::vector<EventPtr> events;
  while (events.size() < size_t{kThreads * kPerThread}) {
    ASSERT_TRUE((*all)->Next(milliseconds(2000), &events).ok());
  }
  ASSERT_EQ(events.size(), size_t{kThreads * kPerThread});
  std::map<std::string, int64_t> created;
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i]->revision, static_cast<int64_t>(i + 1));
    created[events[i]->kv.key] = events[i]->revision;
  }
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      EXPECT_EQ(created["/t/" + std::to_string(t) + "/" + std::to_string(i)],
                revisions[t][i]);
    }
  }
  std::vector<EventPtr> filtered;
  while (filtered.size() < size_t{kPerThread}) {
    ASSERT_TRUE((*half)->Next(milliseconds(2000), &filtered).ok());
  }
  EXPECT_EQ(filtered.size(), size_t{kPerThread});
  EXPECT_EQ(filtered.front()->kv.key, "/t/3/0");
}

TEST_P(StorageConformanceTest, WatchesStartedDuringWritesMissAndRepeatNothing) {
  constexpr int kWrites = 600;
  std::thread writer([&] {
    for (int i = 0; i < kWrites; ++i) {
      ASSERT_TRUE(store_->Create("/r/" + std::to_string(i), "v").ok());
    }
  });
  // Start watches from revisions that are being written right now, so the
  // replay and the live stream overlap.
  struct Started {
    int64_t after;
    std::unique_ptr<Watcher> watcher;
  };
  std::vector<Started> watches;
  while (watches.size() < 20) {
    int64_t after = store_->CurrentRevision();
    if (watches.size() % 2 == 0) --after;
    if (after <= 0) continue;  // 0 would mean "from now on"
    auto w = store_->Watch("/r/", after);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    watches.push_back({after, std::move(w).value()});
    std::this_thread::sleep_for(milliseconds(1));
  }
  writer.join();
  for (Started& s : watches) {
    std::vector<EventPtr> events;
    while (events.size() < static_cast<size_t>(kWrites - s.after)) {
      size_t before = events.size();
      Status st = s.watcher->Next(milliseconds(2000), &events);
      ASSERT_TRUE(st.ok()) << st.ToString();
      if (events.size() == before) break;  // timed out
    }
    ASSERT_EQ(events.size(), static_cast<size_t>(kWrites - s.after))
        << "watch after " << s.after;
    for (size_t i = 0; i < events.size(); ++i) {
      ASSERT_EQ(events[i]->revision, s.after + 1 + static_cast<int64_t>(i));
    }
  }
}

TEST_P(StorageConformanceTest, ConcurrentCasIncrementsLoseNoUpdate) {
  ASSERT_TRUE(store_->Create("/counter", "0").ok());
  constexpr int kThreads = 4;
  constexpr int kPerThread = 50;
  std::atomic<int> conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread;) {
        auto cur = store_->Get("/counter");
        ASSERT_TRUE(cur.ok());
        int n = std::stoi(cur->value);
        auto r = store_->Update("/counter", std::to_string(n + 1),
                                cur->mod_revision);
        if (r.ok()) {
          ++i;
        } else {
          ASSERT_EQ(CodeName(r), "Conflict");
          ++conflicts;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  auto final_kv = store_->Get("/counter");
  ASSERT_TRUE(final_kv.ok());
  EXPECT_EQ(final_kv->value, std::to_string(kThreads * kPerThread));
  EXPECT_EQ(final_kv->version, kThreads * kPerThread + 1);
  EXPECT_EQ(store_->CurrentRevision(), kThreads * kPerThread + 1);
}

TEST_P(StorageConformanceTest, SlowWatcherIsEndedWithoutBlockingWriters) {
  StorageOptions options;
  options.watcher_queue_limit = 5;
  Reopen(options);
  auto slow = store_->Watch("/", 0);
  ASSERT_TRUE(slow.ok());
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 50; ++i) Put("/k" + std::to_string(i), "v");
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(20000));
  EXPECT_EQ(store_->CurrentRevision(), 50);
  std::vector<EventPtr> events;
  EXPECT_EQ(CodeName((*slow)->Next(milliseconds(100), &events)), "FellBehind");
  EXPECT_TRUE(events.empty());
  // Nothing was compacted: a new watch from where it stopped has it all.
  auto again = store_->Watch("/", 45);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(Collect(again->get(), 5),
            "PUT /k45=v@46, PUT /k46=v@47, PUT /k47=v@48, PUT /k48=v@49, "
            "PUT /k49=v@50");
  // A watcher that keeps up is not affected.
  auto fast = store_->Watch("/", 0);
  ASSERT_TRUE(fast.ok());
  Put("/late", "1");
  EXPECT_EQ(Collect(fast->get(), 1), "PUT /late=1@51");
}

TEST_P(StorageConformanceTest, PeriodicCompactionKeepsOneIntervalOfHistory) {
  StorageOptions options;
  options.compaction_interval = milliseconds(30);
  Reopen(options, /*keep_interval=*/true);
  Put("/a", "1");
  Put("/a", "2");
  auto deadline = std::chrono::steady_clock::now() + milliseconds(5000);
  while (store_->CompactedRevision() < 2 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(store_->CompactedRevision(), 2);
  EXPECT_EQ(KvString(*store_->Get("/a")), "/a=2@2");
  store_->Close();  // stops the loop
}

INSTANTIATE_TEST_SUITE_P(Backends, StorageConformanceTest,
                         ::testing::Values(Backend::kDisk, Backend::kMemory),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::kDisk ? "Disk"
                                                               : "Memory";
                         });

}  // namespace
}  // namespace kmock::store
