// Tests of the RocksDB store beyond the conformance suite: restart,
// crash-safe compaction, durability across kill -9, sticky write errors.
#include "store/rocks_storage.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/file_system.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/rocks_format.h"
#include "store/storage_test_util.h"

namespace kmock::store {
namespace {

using std::chrono::milliseconds;
using testing::CodeName;
using testing::EventsString;
using testing::KvFullString;
using testing::ListString;

std::unique_ptr<Storage> OpenAt(const std::string& path, bool sync = true) {
  StorageOptions o;
  o.path = path;
  o.sync = sync;
  o.compaction_interval = milliseconds(0);
  auto s = OpenRocksStorage(o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : nullptr;
}

std::string ListAt(Storage* s, const std::string& prefix, int64_t rev) {
  ListOptions o;
  o.prefix = prefix;
  o.revision = rev;
  auto r = s->List(o);
  return r.ok() ? ListString(*r) : CodeName(r);
}

// Opens the database directly, bypassing the store, to inspect or tamper
// with what is on disk.
class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    rocksdb::Options options;
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const char* name : {rocksdb::kDefaultColumnFamilyName.c_str(),
                             format::kLogFamily, format::kCurrentFamily,
                             format::kHistoryFamily, format::kMetaFamily}) {
      families.emplace_back(name, rocksdb::ColumnFamilyOptions());
    }
    rocksdb::Status s =
        rocksdb::DB::Open(options, path, families, &handles_, &db_);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  ~RawDb() {
    for (auto* h : handles_) (void)db_->DestroyColumnFamilyHandle(h);
    delete db_;
  }

  // Families by their index in handles_.
  static constexpr int kLog = 1;
  static constexpr int kCurrent = 2;
  static constexpr int kHistory = 3;

  void Put(int family, const std::string& key, const std::string& value) {
    ASSERT_TRUE(
        db_->Put(rocksdb::WriteOptions(), handles_[family], key, value).ok());
  }
  // How many of the family's values contain `text`.
  int CountOccurrences(int family, std::string_view text) {
    int n = 0;
    std::unique_ptr<rocksdb::Iterator> it(
        db_->NewIterator(rocksdb::ReadOptions(), handles_[family]));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (it->value().ToStringView().find(text) != std::string_view::npos) {
        ++n;
      }
    }
    return n;
  }
  void PutMeta(const char* name, int64_t revision) {
    ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), handles_[4], name,
                         format::RevisionKey(revision))
                    .ok());
  }
  // "/a@3 /b@5": every history entry.
  std::string History() {
    std::string out;
    std::unique_ptr<rocksdb::Iterator> it(
        db_->NewIterator(rocksdb::ReadOptions(), handles_[3]));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      std::string_view key;
      int64_t rev;
      EXPECT_TRUE(
          format::ParseHistoryKey(it->key().ToStringView(), &key, &rev));
      if (!out.empty()) out += " ";
      out += std::string(key) + "@" + std::to_string(rev);
      if (format::IsTombstone(it->value().ToStringView())) out += "(del)";
    }
    return out;
  }
  // Rewrites every family's tables with RocksDB's default table options
  // (snappy, no Bloom filters): the tables of a store written before the
  // store chose its own.
  void RewriteTablesWithDefaults() {
    for (auto* h : handles_) {
      ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions(), h).ok());
      rocksdb::CompactRangeOptions o;
      o.bottommost_level_compaction =
          rocksdb::BottommostLevelCompaction::kForce;
      ASSERT_TRUE(db_->CompactRange(o, h, nullptr, nullptr).ok());
    }
  }
  // "4 5": every log revision.
  std::string Log() {
    std::string out;
    std::unique_ptr<rocksdb::Iterator> it(
        db_->NewIterator(rocksdb::ReadOptions(), handles_[1]));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      int64_t rev;
      EXPECT_TRUE(format::DecodeRevision(it->key().ToStringView(), &rev));
      if (!out.empty()) out += " ";
      out += std::to_string(rev);
    }
    return out;
  }

 private:
  rocksdb::DB* db_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
};

// Revisions 1-3: /a=1, /b=1, then /a=2.
void WriteFirstRevisions(Storage* s) {
  ASSERT_TRUE(s->Create("/a", "1").ok());     // 1
  ASSERT_TRUE(s->Create("/b", "1").ok());     // 2
  ASSERT_TRUE(s->Update("/a", "2", 1).ok());  // 3
}

TEST(RocksStorageTest, RestartKeepsEverythingAndRevisionsContinue) {
  testing::TempDir dir;
  {
    auto s = OpenAt(dir.path());
    ASSERT_NE(s, nullptr);
    WriteFirstRevisions(s.get());
    ASSERT_TRUE(s->Delete("/b", 0).ok());    // 4
    ASSERT_TRUE(s->Create("/c", "1").ok());  // 5
    ASSERT_TRUE(s->Compact(2).ok());
  }  // the destructor closes
  auto s = OpenAt(dir.path());
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->CurrentRevision(), 5);
  EXPECT_EQ(s->CompactedRevision(), 2);
  EXPECT_EQ(KvFullString(*s->Get("/a")), "/a=2 c1 m3 v2");
  EXPECT_EQ(ListAt(s.get(), "/", 2), "Compacted");
  EXPECT_EQ(ListAt(s.get(), "/", 3), "/a=2@3 /b=1@2 @rev=3");
  EXPECT_EQ(ListAt(s.get(), "/", 0), "/a=2@3 /c=1@5 @rev=5");
  auto w = s->Watch("/", 3);
  ASSERT_TRUE(w.ok());
  auto created = s->Create("/d", "1");
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created->mod_revision, 6);
  std::vector<EventPtr> events;
  while (events.size() < 3) {
    ASSERT_TRUE((*w)->Next(milliseconds(2000), &events).ok());
  }
  EXPECT_EQ(EventsString(events), "DELETE /b@4 prev=1, PUT /c=1@5, PUT /d=1@6");
  EXPECT_EQ(CodeName(s->Watch("/", 1)), "Compacted");
}

// A data directory whose tables were written with other table options
// (compression, no filters) is read as before, alongside the tables the
// store writes now: reads, lists, a create's existence check, history.
TEST(RocksStorageTest, TablesWrittenWithEarlierOptionsStayReadable) {
  testing::TempDir dir;
  {
    auto s = OpenAt(dir.path());
    ASSERT_NE(s, nullptr);
    WriteFirstRevisions(s.get());
  }
  RawDb(dir.path()).RewriteTablesWithDefaults();
  {
    auto s = OpenAt(dir.path());
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(KvFullString(*s->Get("/a")), "/a=2 c1 m3 v2");
    EXPECT_EQ(CodeName(s->Create("/b", "2")), "AlreadyExists");
    ASSERT_TRUE(s->Create("/c", "1").ok());     // 4
    ASSERT_TRUE(s->Update("/b", "2", 2).ok());  // 5
  }
  // Reopened: the earlier tables beside the writes made since.
  auto s = OpenAt(dir.path());
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(CodeName(s->Get("/d")), "NotFound");
  EXPECT_EQ(ListAt(s.get(), "/", 0), "/a=2@3 /b=2@5 /c=1@4 @rev=5");
  EXPECT_EQ(ListAt(s.get(), "/", 2), "/a=1@1 /b=1@2 @rev=2");
  auto w = s->Watch("/", 2);
  ASSERT_TRUE(w.ok());
  std::vector<EventPtr> events;
  for (int i = 0; i < 50 && events.size() < 3; ++i) {
    ASSERT_TRUE((*w)->Next(milliseconds(100), &events).ok());
  }
  EXPECT_EQ(EventsString(events),
            "PUT /a=2@3 prev=1, PUT /c=1@4, PUT /b=2@5 prev=1");
}

TEST(RocksStorageTest, InterruptedCompactionFinishesAtOpen) {
  testing::TempDir dir;
  {
    auto s = OpenAt(dir.path());
    ASSERT_NE(s, nullptr);
    ASSERT_TRUE(s->Create("/a", "1").ok());     // 1
    ASSERT_TRUE(s->Update("/a", "2", 0).ok());  // 2
    ASSERT_TRUE(s->Update("/a", "3", 0).ok());  // 3
    ASSERT_TRUE(s->Create("/b", "1").ok());     // 4
    ASSERT_TRUE(s->Delete("/b", 0).ok());       // 5
    ASSERT_TRUE(s->Create("/c", "1").ok());     // 6
    ASSERT_TRUE(s->Delete("/c", 0).ok());       // 7
  }
  {
    // The state a crash leaves right after Compact(6) recorded its plan.
    RawDb raw(dir.path());
    EXPECT_EQ(raw.History(), "/a@1 /a@2 /a@3 /b@4 /b@5(del) /c@6 /c@7(del)");
    raw.PutMeta(format::kMetaScheduledCompact, 6);
  }
  {
    auto s = OpenAt(dir.path());
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->CompactedRevision(), 6);
    EXPECT_EQ(ListAt(s.get(), "/", 6), "Compacted");
    EXPECT_EQ(ListAt(s.get(), "/", 7), "/a=3@3 @rev=7");
  }
  RawDb raw(dir.path());
  // /a keeps its state at 6; /b was deleted at or below 6; /c's state at 6
  // is needed because its delete (7) is above the compacted revision. The
  // log keeps the values of the kept states (3, 6) and what is above 6.
  EXPECT_EQ(raw.History(), "/a@3 /c@6 /c@7(del)");
  EXPECT_EQ(raw.Log(), "3 6 7");
}

TEST(RocksStorageTest, CompactionDeletesInManyBatches) {
  testing::TempDir dir;
  auto s = OpenAt(dir.path(), /*sync=*/false);
  ASSERT_NE(s, nullptr);
  for (int i = 0; i < 2500; ++i) {
    ASSERT_TRUE(s->Create("/k/" + std::to_string(i), "v").ok());
  }
  for (int i = 0; i < 2500; ++i) {
    ASSERT_TRUE(s->Update("/k/" + std::to_string(i), "w", 0).ok());
  }
  ASSERT_TRUE(s->Compact(5000).ok());
  ListOptions o;
  o.prefix = "/k/";
  auto all = s->List(o);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->items.size(), 2500u);
  s.reset();
  RawDb raw(dir.path());
  // Each key's create (1-2500) is superseded by its update (2501-5000),
  // whose value the log keeps.
  std::string log = raw.Log();
  EXPECT_EQ(std::count(log.begin(), log.end(), ' '), 2499);
  EXPECT_TRUE(log.starts_with("2501 2502 ")) << log.substr(0, 40);
  std::string history = raw.History();
  EXPECT_EQ(std::count(history.begin(), history.end(), '@'), 2500);
}

// A store format 1 wrote: values inline in history records and previous
// values inline in log events, and its compaction at 2 removed the log
// entries 1 and 2. /a=1 at 1, /b=1 at 2, /a=2 at 3.
void WriteFormatOneStore(const std::string& path) {
  OpenAt(path).reset();  // creates the families
  RawDb raw(path);
  auto record = [](const char* value, int64_t c, int64_t m, int64_t v) {
    format::Record r;
    r.value = value;
    r.create_revision = c;
    r.mod_revision = m;
    r.version = v;
    return format::EncodeRecord(r);
  };
  raw.Put(RawDb::kHistory, format::HistoryKey("/a", 1), record("1", 1, 1, 1));
  raw.Put(RawDb::kHistory, format::HistoryKey("/a", 3), record("2", 1, 3, 2));
  raw.Put(RawDb::kHistory, format::HistoryKey("/b", 2), record("1", 2, 2, 1));
  raw.Put(RawDb::kCurrent, "/a", record("2", 1, 3, 2));
  raw.Put(RawDb::kCurrent, "/b", record("1", 2, 2, 1));
  Event e;
  e.kv = KeyValue{"/a", "2", 1, 3, 2};
  e.has_prev = true;
  e.prev_value = "1";
  e.revision = 3;
  raw.Put(RawDb::kLog, format::RevisionKey(3), format::EncodeEvent(e));
  raw.PutMeta(format::kMetaCurrentRevision, 3);
  raw.PutMeta(format::kMetaScheduledCompact, 2);
  raw.PutMeta(format::kMetaCompactRevision, 2);
}

std::string WatchFrom(Storage* s, int64_t after, size_t want) {
  auto w = s->Watch("/", after);
  if (!w.ok()) return CodeName(w);
  std::vector<EventPtr> events;
  for (int i = 0; i < 50 && events.size() < want; ++i) {
    if (!(*w)->Next(milliseconds(100), &events).ok()) return "watch failed";
  }
  return EventsString(events);
}

TEST(RocksStorageTest, FormatOneStoreIsReadWrittenAndCompacted) {
  testing::TempDir dir;
  WriteFormatOneStore(dir.path());
  auto s = OpenAt(dir.path());
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(ListAt(s.get(), "/", 2), "Compacted");
  EXPECT_EQ(ListAt(s.get(), "/", 3), "/a=2@3 /b=1@2 @rev=3");
  // /b's previous value is at revision 2, whose log entry format 1's
  // compaction removed: it comes from /b's history record.
  ASSERT_TRUE(s->Update("/b", "2", 2).ok());  // 4
  ASSERT_TRUE(s->Delete("/a", 3).ok());       // 5
  EXPECT_EQ(ListAt(s.get(), "/", 3), "/a=2@3 /b=1@2 @rev=3");
  EXPECT_EQ(ListAt(s.get(), "/", 4), "/a=2@3 /b=2@4 @rev=4");
  EXPECT_EQ(WatchFrom(s.get(), 2, 3),
            "PUT /a=2@3 prev=1, PUT /b=2@4 prev=1, DELETE /a@5 prev=2");

  // Compacting over both formats keeps what later reads need: /a's value
  // at 3 (a format 1 log event) and /b's at 4 (a format 2 entry).
  ASSERT_TRUE(s->Compact(4).ok());
  ASSERT_TRUE(s->Update("/b", "3", 4).ok());  // 6
  EXPECT_EQ(ListAt(s.get(), "/", 5), "/b=2@4 @rev=5");
  EXPECT_EQ(WatchFrom(s.get(), 4, 2), "DELETE /a@5 prev=2, PUT /b=3@6 prev=2");
  s.reset();
  RawDb raw(dir.path());
  EXPECT_EQ(raw.History(), "/a@3 /a@5(del) /b@4 /b@6");
  EXPECT_EQ(raw.Log(), "3 4 5 6");
}

TEST(RocksStorageTest, ValuesAreStoredOnceOutsideTheCurrentFamily) {
  testing::TempDir dir;
  {
    auto s = OpenAt(dir.path());
    ASSERT_NE(s, nullptr);
    ASSERT_TRUE(s->Create("/a", "first-value").ok());      // 1
    ASSERT_TRUE(s->Update("/a", "second-value", 1).ok());  // 2
    ASSERT_TRUE(s->Delete("/a", 2).ok());                  // 3
  }
  RawDb raw(dir.path());
  EXPECT_EQ(raw.CountOccurrences(RawDb::kHistory, "value"), 0);
  EXPECT_EQ(raw.CountOccurrences(RawDb::kLog, "first-value"), 1);
  EXPECT_EQ(raw.CountOccurrences(RawDb::kLog, "second-value"), 1);
}

// Run only as a child of SyncWriteSurvivesKill: writes until killed and
// prints "ACK <revision>" after each acknowledged write.
TEST(RocksStorageKillTest, DISABLED_ChildWritesUntilKilled) {
  const char* dir = getenv("KMOCK_STORE_KILL_DIR");
  ASSERT_NE(dir, nullptr);
  auto s = OpenAt(dir, /*sync=*/true);
  ASSERT_NE(s, nullptr);
  if (getenv("KMOCK_STORE_KILL_UNSYNCED") != nullptr) s->SetSyncWrites(false);
  for (int i = 0;; ++i) {
    auto r = s->Create("/k/" + std::to_string(i), std::to_string(i));
    ASSERT_TRUE(r.ok());
    printf("ACK %lld\n", static_cast<long long>(r->mod_revision));
    fflush(stdout);
  }
}

// Starts the child above (writes unsynced when `unsynced`), kills it with
// SIGKILL after 300 acknowledged writes and checks every one of them.
void CheckAcknowledgedWritesSurviveKill(bool unsynced) {
  testing::TempDir dir;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    setenv("KMOCK_STORE_KILL_DIR", dir.path().c_str(), 1);
    if (unsynced) setenv("KMOCK_STORE_KILL_UNSYNCED", "1", 1);
    execl("/proc/self/exe", "kmock_store_test",
          "--gtest_filter=RocksStorageKillTest.DISABLED_ChildWritesUntilKilled",
          "--gtest_also_run_disabled_tests", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  FILE* in = fdopen(fds[0], "r");
  ASSERT_NE(in, nullptr);
  long long acked = 0;
  char line[256];
  while (acked < 300 && fgets(line, sizeof line, in) != nullptr) {
    long long rev;
    if (sscanf(line, "ACK %lld", &rev) == 1) acked = rev;
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  fclose(in);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited early";
  ASSERT_EQ(acked, 300);

  auto s = OpenAt(dir.path());
  ASSERT_NE(s, nullptr);
  EXPECT_GE(s->CurrentRevision(), acked);
  for (long long i = 0; i < acked; ++i) {
    auto kv = s->Get("/k/" + std::to_string(i));
    ASSERT_TRUE(kv.ok()) << "acknowledged write " << i << " lost";
    EXPECT_EQ(kv->mod_revision, i + 1);
  }
  // Revisions continue after the last durable one.
  auto next = s->Create("/after", "1");
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->mod_revision, s->CurrentRevision());
  EXPECT_GT(next->mod_revision, acked);
}

TEST(RocksStorageTest, SyncWriteSurvivesKill) {
  CheckAcknowledgedWritesSurviveKill(/*unsynced=*/false);
}

// Unsynced writes reach the OS before they return: a killed process (not a
// machine crash) loses none of them.
TEST(RocksStorageTest, UnsyncedWriteSurvivesKillOfTheProcess) {
  CheckAcknowledgedWritesSurviveKill(/*unsynced=*/true);
}

TEST(RocksStorageTest, SyncAllAfterUnsyncedWritesKeepsThemAcrossRestart) {
  testing::TempDir dir;
  {
    auto s = OpenAt(dir.path());
    ASSERT_NE(s, nullptr);
    s->SetSyncWrites(false);
    ASSERT_TRUE(s->Create("/a", "1").ok());
    ASSERT_TRUE(s->Update("/a", "2", 0).ok());
    s->SetSyncWrites(true);
    EXPECT_TRUE(s->SyncAll().ok());
    ASSERT_TRUE(s->Create("/b", "1").ok());
  }
  auto s = OpenAt(dir.path());
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(ListAt(s.get(), "/", 0), "/a=2@2 /b=1@3 @rev=3");
  s->Close();
  EXPECT_EQ(CodeName(s->SyncAll()), "ServiceUnavailable");

  StorageOptions mem;
  mem.in_memory = true;
  mem.compaction_interval = milliseconds(0);
  auto m = OpenRocksStorage(mem);
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE((*m)->SyncAll().ok());  // nothing to make durable
}

// A FileSystem whose WAL appends fail while `fail` is set and wait while
// the gate is closed.
class FaultyWalFileSystem : public rocksdb::FileSystemWrapper {
 public:
  class File : public rocksdb::FSWritableFileOwnerWrapper {
   public:
    File(std::unique_ptr<rocksdb::FSWritableFile> f, FaultyWalFileSystem* fs)
        : FSWritableFileOwnerWrapper(std::move(f)), fs_(fs) {}
    rocksdb::IOStatus Append(const rocksdb::Slice& data,
                             const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override {
      if (!fs_->BeforeAppend()) {
        return rocksdb::IOStatus::IOError("injected WAL failure");
      }
      return FSWritableFileOwnerWrapper::Append(data, options, dbg);
    }
    rocksdb::IOStatus Append(const rocksdb::Slice& data,
                             const rocksdb::IOOptions& options,
                             const rocksdb::DataVerificationInfo& info,
                             rocksdb::IODebugContext* dbg) override {
      if (!fs_->BeforeAppend()) {
        return rocksdb::IOStatus::IOError("injected WAL failure");
      }
      return FSWritableFileOwnerWrapper::Append(data, options, info, dbg);
    }

   private:
    FaultyWalFileSystem* fs_;
  };

  FaultyWalFileSystem() : FileSystemWrapper(rocksdb::FileSystem::Default()) {}
  const char* Name() const override { return "FaultyWalFileSystem"; }
  rocksdb::IOStatus NewWritableFile(
      const std::string& name, const rocksdb::FileOptions& options,
      std::unique_ptr<rocksdb::FSWritableFile>* result,
      rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus s = target()->NewWritableFile(name, options, result, dbg);
    if (s.ok() && name.ends_with(".log")) {
      *result = std::make_unique<File>(std::move(*result), this);
    }
    return s;
  }

  void SetGate(bool open) {
    std::lock_guard<std::mutex> l(mu_);
    gate_open_ = open;
    cv_.notify_all();
  }
  // Blocks while the gate is closed; false = fail this append.
  bool BeforeAppend() {
    std::unique_lock<std::mutex> l(mu_);
    ++appends_waiting_;
    cv_.notify_all();
    cv_.wait(l, [this] { return gate_open_; });
    --appends_waiting_;
    return !fail;
  }
  void WaitForBlockedAppend() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [this] { return appends_waiting_ > 0; });
  }

  std::atomic<bool> fail{false};

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool gate_open_ = true;
  int appends_waiting_ = 0;
};

struct FaultyStore {
  testing::TempDir dir;
  std::shared_ptr<FaultyWalFileSystem> fs =
      std::make_shared<FaultyWalFileSystem>();
  std::unique_ptr<rocksdb::Env> env = rocksdb::NewCompositeEnv(fs);
  std::unique_ptr<Storage> store;

  FaultyStore() {
    StorageOptions o;
    o.path = dir.path();
    o.compaction_interval = milliseconds(0);
    auto opened = OpenRocksStorageWithEnv(o, env.get());
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    if (opened.ok()) store = std::move(opened).value();
  }
  ~FaultyStore() { store.reset(); }  // before env and fs
};

TEST(RocksStorageTest, QueuedWritesCommitAsOneGroup) {
  FaultyStore f;
  ASSERT_NE(f.store, nullptr);
  auto* rocks = dynamic_cast<RocksStorage*>(f.store.get());
  ASSERT_NE(rocks, nullptr);
  int64_t commits_before = rocks->CommitsForTest();
  f.fs->SetGate(false);
  // The first writer leads and stalls in its WAL append...
  std::vector<std::thread> threads;
  std::vector<int64_t> revisions(6);
  threads.emplace_back(
      [&] { revisions[0] = f.store->Create("/0", "v")->mod_revision; });
  f.fs->WaitForBlockedAppend();
  // ...while five more queue behind it.
  for (int i = 1; i < 6; ++i) {
    threads.emplace_back([&, i] {
      revisions[i] =
          f.store->Create("/" + std::to_string(i), "v")->mod_revision;
    });
  }
  while (rocks->QueuedWritersForTest() < 6) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  f.fs->SetGate(true);
  for (auto& t : threads) t.join();
  // Two RocksDB writes for six revisions: the leader's, then one group.
  EXPECT_EQ(rocks->CommitsForTest() - commits_before, 2);
  EXPECT_EQ(revisions[0], 1);
  std::set<int64_t> rest(revisions.begin() + 1, revisions.end());
  EXPECT_EQ(rest, (std::set<int64_t>{2, 3, 4, 5, 6}));
}

// On disk every write is in the log before it is acknowledged; in memory
// the log would only be a second copy of each write in the heap.
TEST(RocksStorageTest, OnlyADiskStoreKeepsAWriteAheadLog) {
  testing::TempDir dir;
  for (bool in_memory : {false, true}) {
    StorageOptions o;
    o.in_memory = in_memory;
    o.path = dir.path();
    o.compaction_interval = milliseconds(0);
    auto s = OpenRocksStorage(o);
    ASSERT_TRUE(s.ok());
    for (int i = 0; i < 50; ++i)
      ASSERT_TRUE((*s)->Create("/k" + std::to_string(i), "value").ok());
    auto* rocks = dynamic_cast<RocksStorage*>(s->get());
    ASSERT_NE(rocks, nullptr);
    if (in_memory) {
      EXPECT_EQ(rocks->LogBytesForTest(), 0u);
    } else {
      EXPECT_GT(rocks->LogBytesForTest(), 50u * 5);
    }
    EXPECT_EQ((*s)->Get("/k49")->value, "value");
    (*s)->Close();
  }
}

// About 50 MB of writes (24 MB of values, stored live and in the log) fill
// a disk store's 32 MB of memtables, so it flushes tables; in memory the
// memtables may take 128 MB, and a flush would only copy them into table
// files in the same memory.
TEST(RocksStorageTest, OnlyADiskStoreFlushesFiftyMegabytesOfWrites) {
  testing::TempDir dir;
  const std::string value(4096, 'v');
  for (bool in_memory : {false, true}) {
    StorageOptions o;
    o.in_memory = in_memory;
    o.path = dir.path() + (in_memory ? "/memory" : "/disk");
    o.sync = false;
    o.compaction_interval = milliseconds(0);
    auto s = OpenRocksStorage(o);
    ASSERT_TRUE(s.ok());
    auto* rocks = dynamic_cast<RocksStorage*>(s->get());
    ASSERT_NE(rocks, nullptr);
    for (int i = 0; i < 6000; ++i) {
      ASSERT_TRUE((*s)->Create("/k" + std::to_string(i), value).ok());
    }
    // Flushes run in the background: give them time to show.
    for (int i = 0; i < 200 && rocks->TableFilesForTest() == 0; ++i) {
      std::this_thread::sleep_for(milliseconds(10));
    }
    if (in_memory) {
      EXPECT_EQ(rocks->TableFilesForTest(), 0u);
    } else {
      EXPECT_GT(rocks->TableFilesForTest(), 0u);
    }
    EXPECT_EQ((*s)->Get("/k5999")->value, value);
    (*s)->Close();
  }
}

TEST(RocksStorageTest, FailedWriteMakesEveryLaterWriteFail) {
  FaultyStore f;
  ASSERT_NE(f.store, nullptr);
  Storage* s = f.store.get();
  ASSERT_TRUE(s->Create("/a", "1").ok());
  auto w = s->Watch("/", 0);
  ASSERT_TRUE(w.ok());
  f.fs->fail = true;
  EXPECT_EQ(CodeName(s->Create("/b", "1")), "InternalError");
  f.fs->fail = false;
  EXPECT_EQ(CodeName(s->Create("/c", "1")), "InternalError");
  EXPECT_EQ(CodeName(s->Update("/a", "2", 0)), "InternalError");
  EXPECT_EQ(s->CurrentRevision(), 1);
  // The failed write was never published.
  std::vector<EventPtr> events;
  EXPECT_TRUE((*w)->Next(milliseconds(50), &events).ok());
  EXPECT_EQ(EventsString(events), "");
  // Reads still work.
  EXPECT_EQ(KvFullString(*s->Get("/a")), "/a=1 c1 m1 v1");
  s->Close();
}

// A store that refuses writes (a full disk, a failed log write) says so in
// its health, which readiness reports.
TEST(RocksStorageTest, AFailedWriteMakesTheStoreUnhealthy) {
  FaultyStore f;
  ASSERT_NE(f.store, nullptr);
  Storage* s = f.store.get();
  ASSERT_TRUE(s->Create("/a", "1").ok());
  EXPECT_TRUE(s->Health().ok());
  f.fs->fail = true;
  EXPECT_EQ(CodeName(s->Create("/b", "1")), "InternalError");
  f.fs->fail = false;
  Status health = s->Health();
  EXPECT_EQ(CodeName(health), "ServiceUnavailable");
  EXPECT_NE(health.message().find("refuses writes"), std::string::npos)
      << health.message();
  s->Close();
  EXPECT_EQ(CodeName(s->Health()), "ServiceUnavailable");
}

}  // namespace
}  // namespace kmock::store
