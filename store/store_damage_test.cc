// Damaged stores: a damaged write-ahead log is refused at open (not
// recovered to the last good record without a word), RepairStore recovers
// what it can and says what was lost, and damaged table files make the
// store unhealthy.
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "store/repair.h"
#include "store/rocks_format.h"
#include "store/rocks_storage.h"
#include "store/storage_test_util.h"
#include "store/store_health.h"

namespace kmock::store {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using testing::CodeName;

constexpr char kHint[] = "run the repair";

Result<std::unique_ptr<Storage>> Open(const std::string& path) {
  StorageOptions o;
  o.path = path;
  o.compaction_interval = milliseconds(0);
  o.damage_hint = kHint;
  return OpenRocksStorage(o);
}

std::string Key(int i) { return "/registry/leases/ns/l" + std::to_string(i); }

// Writes n keys (revisions 1..n), each acknowledged, and closes.
void WriteKeys(const std::string& path, int n) {
  auto s = Open(path);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  for (int i = 1; i <= n; ++i) {
    ASSERT_TRUE((*s)->Create(Key(i), std::string(200, 'a' + i % 26)).ok());
  }
  (*s)->Close();
}

std::string NewestLog(const std::string& path) {
  std::string newest;
  for (const auto& e : fs::directory_iterator(path)) {
    if (e.path().extension() == ".log" && e.path().string() > newest)
      newest = e.path().string();
  }
  return newest;
}

void Overwrite(const std::string& file, uint64_t offset,
               const std::string& bytes) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// How many of keys 1..n the store holds.
int CountKeys(Storage* s, int n) {
  int found = 0;
  for (int i = 1; i <= n; ++i) found += s->Get(Key(i)).ok() ? 1 : 0;
  return found;
}

// RocksDB's default recovery stopped at the damage and opened the store
// without those writes; now the open fails and says what to do.
TEST(StoreDamageTest, ATruncatedLogIsRefusedAtOpen) {
  testing::TempDir dir;
  WriteKeys(dir.path(), 400);
  std::string log = NewestLog(dir.path());
  ASSERT_FALSE(log.empty());
  fs::resize_file(log, fs::file_size(log) - 1000);
  auto s = Open(dir.path());
  ASSERT_FALSE(s.ok()) << "opened with " << CountKeys(s->get(), 400)
                       << " of 400 keys";
  EXPECT_TRUE(IsDamage(s.status())) << s.status().ToString();
  EXPECT_NE(s.status().message().find(kHint), std::string::npos);
}

TEST(StoreDamageTest, GarbageInTheLogIsRefusedAtOpen) {
  testing::TempDir dir;
  WriteKeys(dir.path(), 400);
  std::string log = NewestLog(dir.path());
  Overwrite(log, fs::file_size(log) / 2, std::string(64, '\x5a'));
  auto s = Open(dir.path());
  ASSERT_FALSE(s.ok()) << "opened with " << CountKeys(s->get(), 400)
                       << " of 400 keys";
  EXPECT_TRUE(IsDamage(s.status())) << s.status().ToString();
}

TEST(StoreDamageTest, AnUndamagedStoreNeedsNoRepair) {
  testing::TempDir dir;
  WriteKeys(dir.path(), 10);
  auto r = RepairStore(dir.path(), dir.path() + "-copy");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->damaged);
  EXPECT_EQ(r->recovered_revision, 10);
  EXPECT_FALSE(fs::exists(dir.path() + "-copy"));
}

TEST(StoreDamageTest, RepairOfATruncatedLogKeepsEveryWholeRecord) {
  testing::TempDir dir;
  WriteKeys(dir.path(), 400);
  std::string log = NewestLog(dir.path());
  const uint64_t size = fs::file_size(log);
  fs::resize_file(log, size - 1000);
  const std::string copy =
      dir.path() + "/../" + fs::path(dir.path()).filename().string() + "-copy";
  auto r = RepairStore(dir.path(), copy);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->damaged);
  EXPECT_LT(r->recovered_revision, 400);
  EXPECT_GT(r->recovered_revision, 390);  // ~1000 bytes: a few records
  ASSERT_EQ(r->logs.size(), 1u);
  EXPECT_EQ(r->logs[0].bytes, size - 1000);
  EXPECT_EQ(r->logs[0].kept_records,
            r->recovered_revision);  // one record per write here
  EXPECT_LT(r->logs[0].kept_bytes, r->logs[0].bytes);
  EXPECT_GT(r->logs[0].kept_bytes + 400, r->logs[0].bytes);  // < a record
  // The copy holds the damaged log as it was.
  EXPECT_EQ(fs::file_size(fs::path(copy) / fs::path(log).filename()),
            size - 1000);
  std::string words = DescribeRepair(*r);
  EXPECT_NE(words.find("recovered through revision " +
                       std::to_string(r->recovered_revision)),
            std::string::npos)
      << words;
  // The store opens strictly now, with every key up to that revision.
  auto s = Open(dir.path());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->CurrentRevision(), r->recovered_revision);
  EXPECT_EQ(CountKeys(s->get(), 400), r->recovered_revision);
  EXPECT_TRUE((*s)->Create(Key(1000), "x").ok());
  (*s)->Close();
  fs::remove_all(copy);
}

// Garbage in the middle of the log: everything after it is dropped (the
// store stays consistent), and the whole records past it are named.
TEST(StoreDamageTest, RepairOfGarbageNamesTheRecordsPastIt) {
  testing::TempDir dir;
  WriteKeys(dir.path(), 400);
  std::string log = NewestLog(dir.path());
  Overwrite(log, fs::file_size(log) / 2, std::string(64, '\x5a'));
  const std::string copy = dir.path() + "-copy";
  auto r = RepairStore(dir.path(), copy);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->damaged);
  EXPECT_GT(r->recovered_revision, 100);
  EXPECT_LT(r->recovered_revision, 300);
  ASSERT_EQ(r->logs.size(), 1u);
  // RocksDB skips the rest of the damaged 32 KiB block; the records after
  // it are still readable, and are reported.
  EXPECT_GT(r->logs[0].dropped_records, 0);
  EXPECT_EQ(r->logs[0].last_dropped_revision, 400);
  EXPECT_GT(r->logs[0].first_dropped_revision, r->recovered_revision);
  auto s = Open(dir.path());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(CountKeys(s->get(), 400), r->recovered_revision);
  (*s)->Close();
  fs::remove_all(copy);
}

TEST(StoreDamageTest, RepairRefusesAStoreInUse) {
  testing::TempDir dir;
  auto s = Open(dir.path());
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE((*s)->Create(Key(1), "x").ok());
  auto r = RepairStore(dir.path(), dir.path() + "-copy");
  EXPECT_EQ(CodeName(r), "Conflict") << r.status().ToString();
  (*s)->Close();
}

// Writes every key into table files (the store itself leaves them in the
// log until its memtables fill), then damages the table of live values.
void DamageTheLiveValuesTable(const std::string& path) {
  StoreLayout layout = MakeStoreLayout(false);
  rocksdb::DB* raw = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  ASSERT_TRUE(rocksdb::DB::Open(layout.db_options, path, layout.families,
                                &handles, &raw)
                  .ok());
  ASSERT_TRUE(raw->Flush(rocksdb::FlushOptions(), handles).ok());
  std::vector<rocksdb::LiveFileMetaData> files;
  raw->GetLiveFilesMetaData(&files);
  for (auto* h : handles) (void)raw->DestroyColumnFamilyHandle(h);
  ASSERT_TRUE(raw->Close().ok());
  delete raw;
  for (const auto& f : files) {
    if (f.column_family_name != format::kCurrentFamily) continue;
    // The first data block starts the file.
    Overwrite(path + f.name, 100, std::string(64, '\x5a'));
    return;
  }
  FAIL() << "no table of live values";
}

TEST(StoreDamageTest, ADamagedTableMakesTheStoreUnhealthy) {
  testing::TempDir dir;
  WriteKeys(dir.path(), 400);
  DamageTheLiveValuesTable(dir.path());
  auto s = Open(dir.path());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE((*s)->Health().ok());
  ListOptions lo;
  lo.prefix = "/registry/leases/";
  auto listed = (*s)->List(lo);
  ASSERT_FALSE(listed.ok());
  EXPECT_TRUE(IsDamage(listed.status())) << listed.status().ToString();
  Status health = (*s)->Health();
  EXPECT_EQ(CodeName(health), "ServiceUnavailable");
  EXPECT_NE(health.message().find("Corruption"), std::string::npos)
      << health.message();
  EXPECT_NE(health.message().find(kHint), std::string::npos);
  (*s)->Close();
}

}  // namespace
}  // namespace kmock::store
