// RocksStorage: the Storage implementation on RocksDB (on disk or on
// RocksDB's in-memory Env). The layout is in rocks_format.h.
//
// Internals, for maintainers and tests; callers use OpenRocksStorage.
//
// Writes: one writer at a time, with group commit as in LevelDB's
// DBImpl::Write. Callers queue a Writer in writers_; the front one takes
// every queued writer (up to a bound), validates them in order against the
// stored state plus the group's own earlier writes, assigns revisions, and
// commits the whole group as one RocksDB WriteBatch (one fsync when sync).
// It then publishes the events to watchers in revision order and wakes the
// others. A failed RocksDB write sets bg_error_: every later write fails
// with kInternal.
//
// Health: reads, writes and compactions report damage they meet (corrupt
// or unreadable data) to health_, which RocksDB also tells of its
// background errors; Health() answers from it (store_health.h).
//
// Reads take a RocksDB snapshot and read the current revision from it (the
// writer stores it in the same batch), so data and revision always agree.
// Compaction publishes the new compacted revision before deleting anything,
// and readers check it after taking their snapshot, so a read never sees a
// half-compacted revision.
//
// Thread safety: every public method may be called from any thread.
// Lock order: compact_mu_, then db_mu_, then mu_; the hub's locks last.
#ifndef KMOCK_STORE_ROCKS_STORAGE_H_
#define KMOCK_STORE_ROCKS_STORAGE_H_

#include <rocksdb/db.h>
#include <rocksdb/env.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "store/periodic_compactor.h"
#include "store/rocks_format.h"
#include "store/storage.h"
#include "store/store_health.h"
#include "store/watch_hub.h"

namespace kmock::store {

// Like OpenRocksStorage, but on the given Env when env != nullptr (not
// owned; must outlive the store). Tests use it to inject I/O faults.
Result<std::unique_ptr<Storage>> OpenRocksStorageWithEnv(
    const StorageOptions& options, rocksdb::Env* env);

// The RocksDB options and column families of a store, as the store opens
// it; the repair tool opens a store with the same ones.
struct StoreLayout {
  rocksdb::Options db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
};
StoreLayout MakeStoreLayout(bool in_memory);

class RocksStorage final : public Storage {
 public:
  static Result<std::unique_ptr<RocksStorage>> Open(
      const StorageOptions& options, rocksdb::Env* env);
  ~RocksStorage() override;

  // Implementations of the Storage interface.
  Result<KeyValue> Get(const std::string& key) override;
  Result<ListResult> List(const ListOptions& options) override;
  Result<ScanResult> Scan(
      const ListOptions& options,
      const std::function<Status(const KeyValueView&)>& visit) override;
  Result<KeyValue> Create(const std::string& key, std::string value) override;
  Result<KeyValue> Update(const std::string& key, std::string value,
                          int64_t expected_mod_revision) override;
  Result<KeyValue> Delete(const std::string& key,
                          int64_t expected_mod_revision) override;
  Result<std::unique_ptr<Watcher>> Watch(const std::string& prefix,
                                         int64_t after_revision) override;
  Status Compact(int64_t revision) override;
  int64_t CurrentRevision() override;
  int64_t CompactedRevision() override;
  void SetSyncWrites(bool sync) override;
  Status SyncAll() override;
  Status Health() override;
  void Close() override;

  // Introspection for tests.
  size_t QueuedWritersForTest();
  int64_t CommitsForTest() { return commits_.load(); }
  // Table files in the database (every flush writes one per family).
  size_t TableFilesForTest();
  // Bytes in the current write-ahead log file.
  uint64_t LogBytesForTest();

 private:
  enum class Op { kCreate, kUpdate, kDelete };
  // One queued write; lives on its caller's stack.
  struct Writer {
    Writer(Op o, const std::string& k, std::string v, int64_t expected)
        : op(o),
          key(&k),
          value(std::move(v)),
          expected_mod_revision(expected) {}
    const Op op;
    const std::string* const key;
    std::string value;
    const int64_t expected_mod_revision;
    std::optional<Result<KeyValue>> result;  // set when done
    bool done = false;                       // guarded by mu_
    std::condition_variable cv;
  };
  RocksStorage(const StorageOptions& options);
  Status OpenDb(rocksdb::Env* env);

  Result<KeyValue> SubmitWrite(Writer* w);
  // Options of every write: fsynced when `sync`; in memory without the
  // write-ahead log, which would only keep a second copy of each write in
  // the heap for a restart that cannot happen.
  rocksdb::WriteOptions WriteOptionsFor(bool sync) const {
    rocksdb::WriteOptions wo;
    wo.sync = sync && !options_.in_memory;
    wo.disableWAL = options_.in_memory;
    return wo;
  }
  // Validates, commits and publishes a group. Called by the front writer
  // only, without mu_. REQUIRES: db_mu_ held (shared).
  void CommitGroup(const std::vector<Writer*>& group);
  // Validates one write against `state` and appends its effects to the
  // batch. Returns the event, or nullptr if nothing is written.
  EventPtr ApplyOne(Writer* w, std::optional<format::Record>* state,
                    int64_t revision, rocksdb::WriteBatch* batch);
  Result<KeyValue> GetCurrent(const std::string& key);
  Result<ScanResult> ScanAt(
      const ListOptions& options,
      const std::function<Status(const KeyValueView&)>& visit);
  Result<std::unique_ptr<Watcher>> WatchFrom(const std::string& prefix,
                                             int64_t after_revision);
  Status ReadCurrent(const std::string& key,
                     std::optional<format::Record>* out);

  // Reads: the current revision as of `snapshot`.
  Status ReadRevisionAt(const rocksdb::Snapshot* snapshot, int64_t* out);
  Status CheckReadRevision(int64_t revision, int64_t current);
  Status ReplayLog(const std::string& prefix, int64_t after_revision,
                   int64_t* through, std::vector<EventPtr>* out);

  // Compaction. REQUIRES: compact_mu_ and db_mu_ (shared) held.
  Status RunCompaction(int64_t revision);
  // Deletes the log entries <= revision except those in `keep` (sorted).
  Status CompactLog(int64_t revision, const std::vector<int64_t>& keep);
  // Deletes superseded history entries <= revision; appends the revisions
  // of the kept ones (whose log entries stay) to *referenced.
  Status CompactHistory(int64_t revision, std::vector<int64_t>* referenced);
  Status WriteMeta(const char* name, int64_t revision);

  const StorageOptions options_;
  std::atomic<bool> sync_writes_;
  std::unique_ptr<rocksdb::Env> mem_env_;  // when in_memory; outlives db_

  // Held shared by everything that touches db_; held exclusively by Close
  // to delete it. db_ == nullptr once closed.
  std::shared_mutex db_mu_;
  rocksdb::DB* db_ = nullptr;
  rocksdb::ColumnFamilyHandle* default_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* log_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* current_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* history_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* meta_cf_ = nullptr;

  std::mutex mu_;
  std::deque<Writer*> writers_;      // guarded by mu_
  std::condition_variable idle_cv_;  // signalled when writers_ empties
  bool closed_ = false;              // guarded by mu_
  Status bg_error_;                  // guarded by mu_
  int64_t last_revision_ = 0;        // owned by the front writer

  std::atomic<int64_t> current_revision_{0};
  std::atomic<int64_t> compacted_revision_{0};
  std::atomic<bool> stopping_{false};  // aborts a running compaction
  std::atomic<int64_t> commits_{0};    // RocksDB writes by the write path

  std::mutex compact_mu_;  // one compaction at a time

  const std::shared_ptr<StoreHealth> health_;
  std::shared_ptr<WatchHub> hub_;
  std::unique_ptr<PeriodicCompactor> compactor_;
};

}  // namespace kmock::store

#endif  // KMOCK_STORE_ROCKS_STORAGE_H_
