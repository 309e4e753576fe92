// RocksStorage: compaction.
//
// Compact(R) first records "scheduled_compact" = R durably and publishes R
// as the compacted revision (reads at or below it now fail), then deletes
// in batches: every history entry <= R except the latest one of each key
// that is still live at R, then every log entry <= R except those at the
// revisions of the kept history entries. Last it records "compact_revision" =
// R. If the process dies in between, Open sees scheduled > compacted and runs
// the deletions again (they are idempotent, and the log pass derives what it
// keeps from the history that is left).
#include <algorithm>
#include <string_view>
#include <vector>

#include "store/rocks_storage.h"

namespace kmock::store {
namespace {

// Deletes per WriteBatch, so compaction never builds one huge batch.
constexpr int kDeleteBatch = 1000;

std::string_view View(const rocksdb::Slice& s) {
  return std::string_view(s.data(), s.size());
}

}  // namespace

Status RocksStorage::Compact(int64_t revision) {
  std::lock_guard<std::mutex> compact_lock(compact_mu_);
  std::shared_lock<std::shared_mutex> db_lock(db_mu_);
  if (db_ == nullptr || stopping_) {
    return Status(StatusCode::kServiceUnavailable, "storage is closed");
  }
  int64_t compacted = compacted_revision_.load();
  if (revision <= compacted) {
    return Status(StatusCode::kCompacted,
                  "already compacted to revision " + std::to_string(compacted));
  }
  int64_t current = current_revision_.load();
  if (revision > current) {
    return Status(StatusCode::kFutureRevision,
                  "revision " + std::to_string(revision) +
                      " is beyond the current revision " +
                      std::to_string(current));
  }
  Status st = WriteMeta(format::kMetaScheduledCompact, revision);
  if (st.ok()) {
    compacted_revision_.store(revision);
    st = RunCompaction(revision);
  }
  health_->Observe(st);
  return st;
}

Status RocksStorage::WriteMeta(const char* name, int64_t revision) {
  const rocksdb::WriteOptions wo = WriteOptionsFor(options_.sync);
  rocksdb::Status rs =
      db_->Put(wo, meta_cf_, name, format::RevisionKey(revision));
  if (!rs.ok()) {
    return FromRocks(rs, std::string("writing ") + name);
  }
  return Status::Ok();
}

Status RocksStorage::RunCompaction(int64_t revision) {
  std::vector<int64_t> referenced;
  KMOCK_RETURN_IF_ERROR(CompactHistory(revision, &referenced));
  std::sort(referenced.begin(), referenced.end());
  KMOCK_RETURN_IF_ERROR(CompactLog(revision, referenced));
  return WriteMeta(format::kMetaCompactRevision, revision);
}

Status RocksStorage::CompactLog(int64_t revision,
                                const std::vector<int64_t>& keep) {
  const std::string end = format::RevisionKey(revision + 1);
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(rocksdb::ReadOptions(), log_cf_));
  rocksdb::WriteBatch batch;
  auto next_kept = keep.begin();
  for (it->SeekToFirst(); it->Valid() && View(it->key()) < end; it->Next()) {
    int64_t rev;
    if (!format::DecodeRevision(View(it->key()), &rev)) {
      return InternalError("corrupt log key");
    }
    while (next_kept != keep.end() && *next_kept < rev) ++next_kept;
    if (next_kept != keep.end() && *next_kept == rev) continue;
    batch.Delete(log_cf_, it->key());
    if (batch.Count() >= kDeleteBatch) {
      if (stopping_) return Status(StatusCode::kServiceUnavailable, "closing");
      rocksdb::Status rs = db_->Write(WriteOptionsFor(false), &batch);
      if (!rs.ok()) return FromRocks(rs, "compacting log");
      batch.Clear();
    }
  }
  if (!it->status().ok()) {
    return FromRocks(it->status(), "compacting log");
  }
  rocksdb::Status rs = db_->Write(WriteOptionsFor(false), &batch);
  if (!rs.ok()) return FromRocks(rs, "compacting log");
  return Status::Ok();
}

Status RocksStorage::CompactHistory(int64_t revision,
                                    std::vector<int64_t>* referenced) {
  // Entries of one key are contiguous and in revision order. Of those
  // <= revision, the last one is the key's state at `revision`: kept unless
  // it is a tombstone; every earlier one is superseded. A kept entry keeps
  // the log entry of its revision: a reference's value is there, and the
  // key's next write names it as its previous value.
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(rocksdb::ReadOptions(), history_cf_));
  rocksdb::WriteBatch batch;
  std::string pending_key;  // raw history key of the latest <= revision
  bool pending_tombstone = false;
  int64_t pending_revision = 0;
  std::string group;  // user key of pending_key

  auto flush_batch = [&]() -> Status {
    if (batch.Count() == 0) return Status::Ok();
    rocksdb::Status rs = db_->Write(WriteOptionsFor(false), &batch);
    batch.Clear();
    if (!rs.ok()) return FromRocks(rs, "compacting history");
    return Status::Ok();
  };
  auto settle_pending = [&]() {
    if (!pending_key.empty()) {
      if (pending_tombstone) {
        batch.Delete(history_cf_, pending_key);
      } else {
        referenced->push_back(pending_revision);
      }
    }
    pending_key.clear();
  };

  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string_view key;
    int64_t rev;
    if (!format::ParseHistoryKey(View(it->key()), &key, &rev)) {
      return InternalError("corrupt history key");
    }
    if (key != group) {
      settle_pending();
      group.assign(key.data(), key.size());
    }
    if (rev <= revision) {
      if (!pending_key.empty()) batch.Delete(history_cf_, pending_key);
      pending_key.assign(it->key().data(), it->key().size());
      pending_tombstone = format::IsTombstone(View(it->value()));
      pending_revision = rev;
    } else {
      settle_pending();
    }
    if (batch.Count() >= kDeleteBatch) {
      if (stopping_) return Status(StatusCode::kServiceUnavailable, "closing");
      KMOCK_RETURN_IF_ERROR(flush_batch());
    }
  }
  if (!it->status().ok()) {
    return FromRocks(it->status(), "compacting history");
  }
  settle_pending();
  return flush_batch();
}

}  // namespace kmock::store
