// RocksStorage: opening, closing, reads and watches. Writes are in
// rocks_storage_write.cc, compaction in rocks_storage_compact.cc.
#include "store/rocks_storage.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>
#include <unordered_map>
#include <utility>

#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "store/remaining_count_cache.h"
#include "store/revision_cursor.h"
#include "store/store_health.h"

namespace kmock::store {
namespace {

Status Unavailable() {
  return Status(StatusCode::kServiceUnavailable, "storage is closed");
}

// Releases a RocksDB snapshot when it goes out of scope.
class ScopedSnapshot {
 public:
  explicit ScopedSnapshot(rocksdb::DB* db)
      : db_(db), snap_(db->GetSnapshot()) {}
  ~ScopedSnapshot() { db_->ReleaseSnapshot(snap_); }
  ScopedSnapshot(const ScopedSnapshot&) = delete;
  ScopedSnapshot& operator=(const ScopedSnapshot&) = delete;
  const rocksdb::Snapshot* get() const { return snap_; }

 private:
  rocksdb::DB* db_;
  const rocksdb::Snapshot* snap_;
};

KeyValue ToKeyValue(std::string_view key, format::Record&& r) {
  KeyValue kv;
  kv.key.assign(key.data(), key.size());
  kv.value = std::move(r.value);
  kv.create_revision = r.create_revision;
  kv.mod_revision = r.mod_revision;
  kv.version = r.version;
  return kv;
}

std::string_view View(const rocksdb::Slice& s) {
  return std::string_view(s.data(), s.size());
}

// Remaining counts of recent pages, for every open store (keyed by the
// store; Close forgets its entries).
RemainingCountCache& CountCache() {
  static auto* cache = new RemainingCountCache(1024);
  return *cache;
}

}  // namespace

Result<std::unique_ptr<Storage>> OpenRocksStorage(
    const StorageOptions& options) {
  return OpenRocksStorageWithEnv(options, nullptr);
}

Result<std::unique_ptr<Storage>> OpenRocksStorageWithEnv(
    const StorageOptions& options, rocksdb::Env* env) {
  KMOCK_ASSIGN_OR_RETURN(auto storage, RocksStorage::Open(options, env));
  return std::unique_ptr<Storage>(std::move(storage));
}

RocksStorage::RocksStorage(const StorageOptions& options)
    : options_(options),
      sync_writes_(options.sync),
      health_(std::make_shared<StoreHealth>(options.damage_hint)),
      hub_(std::make_shared<WatchHub>()) {}

RocksStorage::~RocksStorage() { Close(); }

Result<std::unique_ptr<RocksStorage>> RocksStorage::Open(
    const StorageOptions& options, rocksdb::Env* env) {
  std::unique_ptr<RocksStorage> s(new RocksStorage(options));
  KMOCK_RETURN_IF_ERROR(s->OpenDb(env));
  if (options.compaction_interval.count() > 0) {
    RocksStorage* self = s.get();
    s->compactor_ = std::make_unique<PeriodicCompactor>(
        [self] { return self->CurrentRevision(); },
        [self](int64_t rev) { return self->Compact(rev); });
    s->compactor_->Start(options.compaction_interval);
  }
  return s;
}

StoreLayout MakeStoreLayout(bool in_memory) {
  StoreLayout out;
  out.db_options.create_if_missing = true;
  out.db_options.create_missing_column_families = true;
  // All memtables together stay under this; past it the largest is flushed.
  // Bounds the store's memory under a burst of writes (RocksDB's default
  // would let each family take 64 MB times its write-buffer count).
  out.db_options.db_write_buffer_size = 32 << 20;
  // In memory there is no restart to shorten and no disk to spare: a
  // flush only moves the memtable's data into table files in the same
  // memory, and every flush of the live values overlaps all of level 1, so
  // the compactions that follow rewrite more as the store grows (four runs
  // of 10,000 pods back to back on one server: compaction CPU per run
  // 0.8 -> 4.0 s with 32 MB, at most 1.8 s with 128 MB; the runs took
  // 16.2 -> 19.2 s, now 15.9-16.2 s).
  if (in_memory) out.db_options.db_write_buffer_size = 128 << 20;
  // Replayed log records stay in the memtables instead of being written
  // out as new table files (and fsynced) before the store opens: a restart
  // costs a log read, not a flush per column family.
  out.db_options.avoid_flush_during_recovery = true;
  // The current values are what every LIST reads whole: stored without
  // compression they are read without decompressing (snappy took 8-14% of
  // a full LIST's CPU); the extra disk and page cache they take is not the
  // process's memory. History and the log are read rarely and stay
  // compressed. Tables written before keep their compression.
  rocksdb::ColumnFamilyOptions current_options;
  current_options.compression = rocksdb::kNoCompression;
  // A LIST pays per block (a cache lookup, a read, an index step): with
  // RocksDB's 4 KiB blocks that was one block per pod. 32 KiB blocks hold
  // several objects each (-30% of a full LIST's server CPU); a point read
  // searches a larger block, which costs it little.
  rocksdb::BlockBasedTableOptions current_tables;
  current_tables.block_size = 32 << 10;
  // Every create first asks whether its key exists (a miss, searched in
  // the memtable and every table that could hold it) and every update
  // reads its key's current value: a Bloom filter per table answers the
  // tables that do not hold the key without reading their blocks.
  current_tables.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  current_options.table_factory.reset(
      rocksdb::NewBlockBasedTableFactory(current_tables));
  // History keys (user key + revision) are new keys spread over the whole
  // key space, so every flush overlaps all of level 1 and a level-0
  // compaction rewrites it; level 1 grows with the revisions kept until
  // the next compaction. Compacting ten flushes at a time instead of four
  // rewrites it less than half as often (compaction CPU per 10,000-pod
  // bring-up and teardown: 10 s -> 4.7 s); history is read only at old
  // revisions, where the extra level-0 files cost little.
  rocksdb::ColumnFamilyOptions history_options;
  history_options.level0_file_num_compaction_trigger = 10;
  // History and the log take every revision's value (the log its previous
  // one too), compressed as they are flushed and compacted: LZ4 compresses
  // at about twice snappy's speed for a similar size.
  rocksdb::ColumnFamilyOptions log_options;
  const std::vector<rocksdb::CompressionType> supported =
      rocksdb::GetSupportedCompressions();
  if (std::find(supported.begin(), supported.end(), rocksdb::kLZ4Compression) !=
      supported.end()) {
    history_options.compression = rocksdb::kLZ4Compression;
    log_options.compression = rocksdb::kLZ4Compression;
  }
  out.families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
      {format::kLogFamily, log_options},
      {format::kCurrentFamily, current_options},
      {format::kHistoryFamily, history_options},
      {format::kMetaFamily, rocksdb::ColumnFamilyOptions()},
  };
  return out;
}

Status RocksStorage::OpenDb(rocksdb::Env* env) {
  StoreLayout layout = MakeStoreLayout(options_.in_memory);
  rocksdb::Options& db_options = layout.db_options;
  // Any damage to the log refuses the open (with options_.damage_hint):
  // RocksDB's default recovers to the last good record without a word,
  // dropping every acknowledged write after it. A write is acknowledged
  // only after its log record is written whole, so a crash leaves at most
  // the last record cut short, and only in the rare case of a process
  // killed in the middle of a write() of several pages (Linux stops such
  // a write part way); that too is refused, since it cannot be told from
  // a log cut short by damage (docs/architecture.md, "Damaged stores").
  db_options.wal_recovery_mode = rocksdb::WALRecoveryMode::kAbsoluteConsistency;
  db_options.listeners.push_back(health_);
  std::string path = options_.path;
  if (env != nullptr) {
    db_options.env = env;
  } else if (options_.in_memory) {
    mem_env_.reset(rocksdb::NewMemEnv(rocksdb::Env::Default()));
    db_options.env = mem_env_.get();
  }
  if (options_.in_memory) {
    if (path.empty()) path = "/kmock-memory";
  } else {
    if (path.empty()) return BadRequestError("storage path is empty");
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) {
      return InternalError("cannot create " + path + ": " + ec.message());
    }
  }

  std::vector<rocksdb::ColumnFamilyDescriptor>& families = layout.families;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::Status rs =
      rocksdb::DB::Open(db_options, path, families, &handles, &db_);
  if (!rs.ok()) {
    Status st = FromRocks(rs, "opening the store");
    if (!IsDamage(st) || health_->hint().empty()) return st;
    return InternalError(st.message() + "; " + health_->hint());
  }
  default_cf_ = handles[0];
  log_cf_ = handles[1];
  current_cf_ = handles[2];
  history_cf_ = handles[3];
  meta_cf_ = handles[4];

  int64_t current = 0, compacted = 0, scheduled = 0;
  for (auto [name, out] :
       {std::pair{format::kMetaCurrentRevision, &current},
        std::pair{format::kMetaCompactRevision, &compacted},
        std::pair{format::kMetaScheduledCompact, &scheduled}}) {
    std::string value;
    rs = db_->Get(rocksdb::ReadOptions(), meta_cf_, name, &value);
    if (rs.IsNotFound()) continue;
    if (!rs.ok()) return FromRocks(rs, "reading meta");
    if (!format::DecodeRevision(value, out)) {
      return InternalError(std::string("corrupt meta ") + name);
    }
  }
  last_revision_ = current;
  current_revision_ = current;
  compacted_revision_ = compacted;
  hub_->SetPublishedRevision(current);
  if (scheduled > compacted) {
    // A compaction was interrupted: finish it before serving.
    std::lock_guard<std::mutex> l(compact_mu_);
    std::shared_lock<std::shared_mutex> db_lock(db_mu_);
    compacted_revision_ = scheduled;
    KMOCK_RETURN_IF_ERROR(RunCompaction(scheduled));
  }
  return Status::Ok();
}

void RocksStorage::Close() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (closed_) return;
    closed_ = true;
  }
  stopping_ = true;
  compactor_.reset();  // joins the loop
  {
    // Queued writes finish; new ones are refused.
    std::unique_lock<std::mutex> l(mu_);
    idle_cv_.wait(l, [this] { return writers_.empty(); });
  }
  hub_->CloseAll(Status(StatusCode::kServiceUnavailable, "storage is closed"));
  std::unique_lock<std::shared_mutex> db_lock(db_mu_);
  if (db_ == nullptr) return;
  if (!sync_writes_.load()) (void)db_->FlushWAL(/*sync=*/true);
  for (auto* cf : {default_cf_, log_cf_, current_cf_, history_cf_, meta_cf_}) {
    (void)db_->DestroyColumnFamilyHandle(cf);
  }
  (void)db_->Close();
  delete db_;
  db_ = nullptr;
  CountCache().Forget(this);
}

int64_t RocksStorage::CurrentRevision() { return current_revision_.load(); }

int64_t RocksStorage::CompactedRevision() { return compacted_revision_.load(); }

void RocksStorage::SetSyncWrites(bool sync) { sync_writes_.store(sync); }

size_t RocksStorage::TableFilesForTest() {
  std::shared_lock<std::shared_mutex> db_lock(db_mu_);
  if (db_ == nullptr) return 0;
  std::vector<rocksdb::LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  return files.size();
}

uint64_t RocksStorage::LogBytesForTest() {
  std::shared_lock<std::shared_mutex> db_lock(db_mu_);
  std::unique_ptr<rocksdb::LogFile> log;
  if (db_ == nullptr || !db_->GetCurrentWalFile(&log).ok() || !log) return 0;
  return log->SizeFileBytes();
}

Status RocksStorage::SyncAll() {
  std::shared_lock<std::shared_mutex> db_lock(db_mu_);
  if (db_ == nullptr)
    return Status(StatusCode::kServiceUnavailable, "storage is closed");
  if (options_.in_memory) return Status::Ok();  // nothing to make durable
  rocksdb::Status rs = db_->FlushWAL(/*sync=*/true);
  if (!rs.ok()) return FromRocks(rs, "syncing the log");
  return Status::Ok();
}

Status RocksStorage::ReadRevisionAt(const rocksdb::Snapshot* snapshot,
                                    int64_t* out) {
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  std::string value;
  rocksdb::Status rs =
      db_->Get(ro, meta_cf_, format::kMetaCurrentRevision, &value);
  if (rs.IsNotFound()) {
    *out = 0;
    return Status::Ok();
  }
  if (!rs.ok()) return FromRocks(rs, "reading the revision");
  if (!format::DecodeRevision(value, out)) {
    return InternalError("corrupt current revision");
  }
  return Status::Ok();
}

// REQUIRES: called after taking the snapshot `current` was read from.
Status RocksStorage::CheckReadRevision(int64_t revision, int64_t current) {
  if (revision > current) {
    return Status(StatusCode::kFutureRevision,
                  "revision " + std::to_string(revision) +
                      " is beyond the current revision " +
                      std::to_string(current));
  }
  int64_t compacted = compacted_revision_.load();
  if (revision <= compacted && revision != current) {
    return Status(StatusCode::kCompacted,
                  "revision " + std::to_string(revision) +
                      " has been compacted (compacted revision " +
                      std::to_string(compacted) + ")");
  }
  return Status::Ok();
}

Status RocksStorage::Health() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (closed_) return Unavailable();
  }
  KMOCK_RETURN_IF_ERROR(health_->Check());
  std::shared_lock<std::shared_mutex> db_lock(db_mu_);
  if (db_ == nullptr) return Unavailable();
  // Background errors the listener may not have seen (one raised while
  // the store was opening).
  uint64_t errors = 0;
  if (db_->GetIntProperty("rocksdb.background-errors", &errors) && errors > 0) {
    health_->Report("RocksDB reports " + std::to_string(errors) +
                    " background error(s); the store may refuse writes");
    return health_->Check();
  }
  return Status::Ok();
}

Result<KeyValue> RocksStorage::Get(const std::string& key) {
  Result<KeyValue> r = GetCurrent(key);
  if (!r.ok()) health_->Observe(r.status());
  return r;
}

Result<ScanResult> RocksStorage::Scan(
    const ListOptions& options,
    const std::function<Status(const KeyValueView&)>& visit) {
  Result<ScanResult> r = ScanAt(options, visit);
  if (!r.ok()) health_->Observe(r.status());
  return r;
}

Result<std::unique_ptr<Watcher>> RocksStorage::Watch(const std::string& prefix,
                                                     int64_t after_revision) {
  Result<std::unique_ptr<Watcher>> r = WatchFrom(prefix, after_revision);
  if (!r.ok()) health_->Observe(r.status());
  return r;
}

Result<KeyValue> RocksStorage::GetCurrent(const std::string& key) {
  std::shared_lock<std::shared_mutex> db_lock(db_mu_);
  if (db_ == nullptr) return Unavailable();
  std::string value;
  rocksdb::Status rs =
      db_->Get(rocksdb::ReadOptions(), current_cf_, key, &value);
  if (rs.IsNotFound()) return NotFoundError("key not found: " + key);
  if (!rs.ok()) return FromRocks(rs, "reading a key");
  format::Record r;
  if (!format::DecodeRecord(value, &r)) {
    return InternalError("corrupt record for " + key);
  }
  return ToKeyValue(key, std::move(r));
}

Result<ListResult> RocksStorage::List(const ListOptions& options) {
  ListResult out;
  KMOCK_ASSIGN_OR_RETURN(ScanResult r,
                         Scan(options, [&out](const KeyValueView& kv) {
                           KeyValue copy;
                           copy.key.assign(kv.key.data(), kv.key.size());
                           copy.value.assign(kv.value.data(), kv.value.size());
                           copy.create_revision = kv.create_revision;
                           copy.mod_revision = kv.mod_revision;
                           copy.version = kv.version;
                           out.items.push_back(std::move(copy));
                           return Status::Ok();
                         }));
  out.revision = r.revision;
  out.more = r.more;
  out.remaining = r.remaining;
  return out;
}

Result<ScanResult> RocksStorage::ScanAt(
    const ListOptions& options,
    const std::function<Status(const KeyValueView&)>& visit) {
  if (!options.start_key.empty() &&
      !options.start_key.starts_with(options.prefix)) {
    return BadRequestError("start key must start with the prefix");
  }
  std::shared_lock<std::shared_mutex> db_lock(db_mu_);
  if (db_ == nullptr) return Unavailable();
  ScopedSnapshot snap(db_);
  int64_t current = 0;
  KMOCK_RETURN_IF_ERROR(ReadRevisionAt(snap.get(), &current));
  int64_t revision = options.revision == 0 ? current : options.revision;
  KMOCK_RETURN_IF_ERROR(CheckReadRevision(revision, current));

  SnapshotView view;
  view.db = db_;
  view.snapshot = snap.get();
  view.current_revision = current;
  view.log = log_cf_;
  view.current = current_cf_;
  view.history = history_cf_;
  KMOCK_ASSIGN_OR_RETURN(
      auto cursor,
      RevisionCursor::Open(view, options.prefix, options.start_key, revision));
  ScanResult out;
  out.revision = revision;
  int64_t items = 0;
  std::string last_key;
  while (cursor->Valid() && (options.limit <= 0 || items < options.limit)) {
    format::RecordView r;
    KMOCK_RETURN_IF_ERROR(cursor->Read(&r));
    KeyValueView kv;
    kv.key = cursor->key();
    kv.value = r.value;
    kv.create_revision = r.create_revision;
    kv.mod_revision = r.mod_revision;
    kv.version = r.version;
    KMOCK_RETURN_IF_ERROR(visit(kv));
    ++items;
    if (options.count_remaining) last_key.assign(kv.key);
    KMOCK_RETURN_IF_ERROR(cursor->Next());
  }
  if (!cursor->Valid()) return out;
  out.more = true;
  if (!options.count_remaining) return out;

  // The page is full and keys follow it: count them, or derive the count
  // from the previous page of the same walk.
  std::optional<int64_t> after_start =
      CountCache().CountFrom(this, options.prefix, revision, options.start_key);
  if (after_start.has_value() && *after_start > items) {
    out.remaining = *after_start - items;
  } else {
    while (cursor->Valid()) {
      ++out.remaining;
      KMOCK_RETURN_IF_ERROR(cursor->Next());
    }
  }
  CountCache().Put(this, options.prefix, revision, last_key, out.remaining);
  return out;
}

Status RocksStorage::ReplayLog(const std::string& prefix,
                               int64_t after_revision, int64_t* through,
                               std::vector<EventPtr>* out) {
  ScopedSnapshot snap(db_);
  int64_t current = 0;
  KMOCK_RETURN_IF_ERROR(ReadRevisionAt(snap.get(), &current));
  if (after_revision > current) {
    return Status(StatusCode::kFutureRevision,
                  "revision " + std::to_string(after_revision) +
                      " is beyond the current revision " +
                      std::to_string(current));
  }
  int64_t compacted = compacted_revision_.load();
  if (after_revision < compacted) {
    return Status(StatusCode::kCompacted,
                  "revision " + std::to_string(after_revision) +
                      " has been compacted (compacted revision " +
                      std::to_string(compacted) + ")");
  }
  rocksdb::ReadOptions ro;
  ro.snapshot = snap.get();
  SnapshotView view;
  view.db = db_;
  view.snapshot = snap.get();
  view.log = log_cf_;
  view.history = history_cf_;
  // Values of the puts replayed so far, by revision: a previous value is
  // usually one of them; older ones are read from the log.
  std::unordered_map<int64_t, const std::string*> replayed;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, log_cf_));
  for (it->Seek(format::RevisionKey(after_revision + 1)); it->Valid();
       it->Next()) {
    format::LogEntryView entry;
    if (!format::DecodeLogEntry(View(it->value()), &entry)) {
      return InternalError("corrupt log entry");
    }
    if (!entry.key.starts_with(prefix)) continue;
    auto e = std::make_shared<Event>();
    e->type = entry.type;
    e->revision = entry.mod_revision;
    e->kv.key.assign(entry.key.data(), entry.key.size());
    e->kv.create_revision = entry.create_revision;
    e->kv.mod_revision = entry.mod_revision;
    e->kv.version = entry.version;
    e->has_prev = entry.has_prev;
    if (entry.prev_revision == 0) {
      e->prev_value.assign(entry.prev_value.data(), entry.prev_value.size());
    } else if (auto found = replayed.find(entry.prev_revision);
               found != replayed.end()) {
      e->prev_value = *found->second;
    } else {
      KMOCK_RETURN_IF_ERROR(ReadValueAt(view, ro, entry.key,
                                        entry.prev_revision, &e->prev_value));
    }
    if (entry.prev_revision != 0 && entry.type == Event::Type::kDelete) {
      e->kv.value = e->prev_value;  // a delete carries the value it removed
    } else {
      e->kv.value.assign(entry.value.data(), entry.value.size());
    }
    if (e->type == Event::Type::kPut) replayed[e->revision] = &e->kv.value;
    out->push_back(std::move(e));
  }
  if (!it->status().ok()) return FromRocks(it->status(), "replaying the log");
  *through = current;
  return Status::Ok();
}

Result<std::unique_ptr<Watcher>> RocksStorage::WatchFrom(
    const std::string& prefix, int64_t after_revision) {
  if (after_revision < 0) return BadRequestError("negative revision");
  std::shared_lock<std::shared_mutex> db_lock(db_mu_);
  if (db_ == nullptr) return Unavailable();
  auto queue =
      std::make_shared<WatchQueue>(prefix, options_.watcher_queue_limit);
  // Subscribe first, so nothing published from here on is missed.
  KMOCK_ASSIGN_OR_RETURN(int64_t published, hub_->Register(queue));
  auto watcher = std::make_unique<HubWatcher>(hub_, queue);
  if (after_revision == 0 || after_revision == published) {
    queue->InstallReplay({}, published);
    return std::unique_ptr<Watcher>(std::move(watcher));
  }
  // Then replay what the log holds after after_revision; live events the
  // replay covers are dropped.
  std::vector<EventPtr> replay;
  int64_t through = 0;
  KMOCK_RETURN_IF_ERROR(ReplayLog(prefix, after_revision, &through, &replay));
  queue->InstallReplay(std::move(replay), through);
  return std::unique_ptr<Watcher>(std::move(watcher));
}

}  // namespace kmock::store
