#include "store/repair.h"

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/wal_filter.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <system_error>

#include "store/rocks_format.h"
#include "store/rocks_storage.h"
#include "store/store_health.h"

namespace kmock::store {
namespace {

namespace fs = std::filesystem;

// The largest current revision a log record (one or more write batches)
// sets; 0 when it sets none (a compaction's deletes).
class RevisionOf : public rocksdb::WriteBatch::Handler {
 public:
  rocksdb::Status PutCF(uint32_t, const rocksdb::Slice& key,
                        const rocksdb::Slice& value) override {
    int64_t rev = 0;
    if (key.ToStringView() == format::kMetaCurrentRevision &&
        format::DecodeRevision(value.ToStringView(), &rev)) {
      revision = std::max(revision, rev);
    }
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteCF(uint32_t, const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }
  rocksdb::Status SingleDeleteCF(uint32_t, const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteRangeCF(uint32_t, const rocksdb::Slice&,
                                const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }
  rocksdb::Status MergeCF(uint32_t, const rocksdb::Slice&,
                          const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }
  int64_t revision = 0;
};

struct Record {
  uint64_t size;     // of the write batch (the log record's payload)
  int64_t revision;  // RevisionOf
};

// Sees every record RocksDB replays from the logs, in order.
class Recorder : public rocksdb::WalFilter {
 public:
  WalProcessingOption LogRecordFound(unsigned long long log_number,
                                     const std::string& log_file_name,
                                     const rocksdb::WriteBatch& batch,
                                     rocksdb::WriteBatch*,
                                     bool* batch_changed) override {
    *batch_changed = false;
    RevisionOf rev;
    (void)batch.Iterate(&rev);
    names[log_number] = fs::path(log_file_name).filename().string();
    records[log_number].push_back(Record{batch.GetDataSize(), rev.revision});
    return WalProcessingOption::kContinueProcessing;
  }
  const char* Name() const override { return "kmock.Recorder"; }

  std::map<uint64_t, std::string> names;
  std::map<uint64_t, std::vector<Record>> records;
};

// Where the records end in the log file: RocksDB's log format (db/
// log_format.h) writes each record as fragments of at most one 32 KiB
// block, each after a 7-byte header, padding a block's last < 7 bytes.
uint64_t EncodedEnd(const std::vector<Record>& records) {
  constexpr uint64_t kBlock = 32768, kHeader = 7;
  uint64_t off = 0;
  for (const Record& r : records) {
    uint64_t left = r.size;
    do {
      uint64_t room = kBlock - off % kBlock;
      if (room < kHeader) off += room;
      uint64_t frag = std::min(left, kBlock - off % kBlock - kHeader);
      off += kHeader + frag;
      left -= frag;
    } while (left > 0);
  }
  return off;
}

Status OpenAndClose(const std::string& path, rocksdb::Options options,
                    std::vector<rocksdb::ColumnFamilyDescriptor> families,
                    bool read_only, int64_t* revision) {
  rocksdb::DB* raw = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::Status rs =
      read_only ? rocksdb::DB::OpenForReadOnly(options, path, families,
                                               &handles, &raw)
                : rocksdb::DB::Open(options, path, families, &handles, &raw);
  if (!rs.ok()) return FromRocks(rs, "opening the store");
  std::unique_ptr<rocksdb::DB> db(raw);
  Status out = Status::Ok();
  if (!read_only) {
    // The recovered state goes into table files: the damaged log is then
    // obsolete, and a strict open no longer reads it.
    rocksdb::FlushOptions fo;
    fo.wait = true;
    rs = db->Flush(fo, handles);
    if (!rs.ok()) out = FromRocks(rs, "writing the recovered data");
  }
  if (out.ok() && revision != nullptr) {
    std::string value;
    rs = db->Get(rocksdb::ReadOptions(), handles.back(),
                 format::kMetaCurrentRevision, &value);
    if (rs.ok()) {
      if (!format::DecodeRevision(value, revision))
        out = InternalError("corrupt current revision");
    } else if (!rs.IsNotFound()) {
      out = FromRocks(rs, "reading the revision");
    }
  }
  for (auto* h : handles) (void)db->DestroyColumnFamilyHandle(h);
  rs = db->Close();
  if (out.ok() && !rs.ok()) out = FromRocks(rs, "closing the store");
  return out;
}

Status CopyStore(const std::string& from, const std::string& to) {
  std::error_code ec;
  if (fs::exists(to, ec)) return InternalError(to + " already exists");
  fs::create_directories(to, ec);
  if (ec) return InternalError("cannot create " + to + ": " + ec.message());
  for (const fs::directory_entry& e : fs::directory_iterator(from, ec)) {
    if (!e.is_regular_file()) continue;
    fs::path dest = fs::path(to) / e.path().filename();
    // Table files are never rewritten in place: a link keeps them as they
    // are without the disk space of a copy.
    if (e.path().extension() == ".sst") {
      fs::create_hard_link(e.path(), dest, ec);
      if (!ec) continue;
      ec.clear();
    }
    fs::copy_file(e.path(), dest, ec);
    if (ec) {
      return InternalError("cannot copy " + e.path().string() + ": " +
                           ec.message());
    }
  }
  if (ec) return InternalError("cannot read " + from + ": " + ec.message());
  return Status::Ok();
}

}  // namespace

Result<RepairReport> RepairStore(const std::string& path,
                                 const std::string& copy_dir) {
  std::error_code ec;
  if (!fs::exists(fs::path(path) / "CURRENT", ec)) {
    return NotFoundError("no store at " + path);
  }
  // A running server holds the lock: repairing under it would corrupt.
  rocksdb::Env* env = rocksdb::Env::Default();
  rocksdb::FileLock* lock = nullptr;
  rocksdb::Status ls = env->LockFile(path + "/LOCK", &lock);
  if (!ls.ok()) {
    return Status(
        StatusCode::kConflict,
        "the store at " + path +
            " is in use (is a server running on it?): " + ls.ToString());
  }
  (void)env->UnlockFile(lock);

  RepairReport report;
  StoreLayout layout = MakeStoreLayout(/*in_memory=*/false);
  layout.db_options.create_if_missing = false;

  // 1. Does it open strictly, as the server opens it?
  rocksdb::Options strict = layout.db_options;
  strict.wal_recovery_mode = rocksdb::WALRecoveryMode::kAbsoluteConsistency;
  Status st = OpenAndClose(path, strict, layout.families, /*read_only=*/true,
                           &report.recovered_revision);
  if (st.ok()) return report;
  if (!IsDamage(st)) return st;
  report.damaged = true;
  report.damage = st.message();

  // 2. Every record still readable, skipping the damage (nothing written).
  auto readable = std::make_shared<Recorder>();
  rocksdb::Options skim = layout.db_options;
  skim.wal_recovery_mode = rocksdb::WALRecoveryMode::kSkipAnyCorruptedRecords;
  skim.wal_filter = readable.get();
  (void)OpenAndClose(path, skim, layout.families, /*read_only=*/true, nullptr);

  // 3. A copy of the damaged store, then the repair itself.
  KMOCK_RETURN_IF_ERROR(CopyStore(path, copy_dir));
  report.copy_dir = copy_dir;
  auto kept = std::make_shared<Recorder>();
  rocksdb::Options tolerant = layout.db_options;
  tolerant.wal_recovery_mode = rocksdb::WALRecoveryMode::kPointInTimeRecovery;
  tolerant.avoid_flush_during_recovery = false;
  tolerant.wal_filter = kept.get();
  Status repaired =
      OpenAndClose(path, tolerant, layout.families,
                   /*read_only=*/false, &report.recovered_revision);
  if (!repaired.ok()) {
    return InternalError("cannot repair the store (" + repaired.message() +
                         "); the damage is not in the log alone. The store "
                         "is as it was, and a copy is in " +
                         copy_dir);
  }
  KMOCK_RETURN_IF_ERROR(OpenAndClose(path, strict, layout.families,
                                     /*read_only=*/true, nullptr));

  // 4. What was dropped, log by log.
  std::map<uint64_t, std::string> names = readable->names;
  names.insert(kept->names.begin(), kept->names.end());
  for (const auto& [number, name] : names) {
    LogLoss loss;
    loss.file = name;
    uintmax_t size = fs::file_size(fs::path(copy_dir) / name, ec);
    loss.bytes = ec ? 0 : size;
    const std::vector<Record>& k = kept->records[number];
    loss.kept_records = static_cast<int64_t>(k.size());
    loss.kept_bytes = std::min<uint64_t>(EncodedEnd(k), loss.bytes);
    for (const Record& r : readable->records[number]) {
      if (r.revision != 0 && r.revision <= report.recovered_revision) continue;
      if (r.revision == 0) continue;  // cannot tell it from a kept one
      ++loss.dropped_records;
      if (loss.first_dropped_revision == 0)
        loss.first_dropped_revision = r.revision;
      loss.last_dropped_revision = r.revision;
    }
    report.logs.push_back(std::move(loss));
  }
  return report;
}

std::string DescribeRepair(const RepairReport& r) {
  if (!r.damaged) {
    return "the store is not damaged (revision " +
           std::to_string(r.recovered_revision) + "); nothing to repair\n";
  }
  std::string out = "damage found: " + r.damage + "\n";
  out += "a copy of the damaged store is in " + r.copy_dir + "\n";
  out += "recovered through revision " + std::to_string(r.recovered_revision) +
         "\n";
  for (const LogLoss& l : r.logs) {
    out += "write-ahead log " + l.file + ": " + std::to_string(l.bytes) +
           " bytes, " + std::to_string(l.kept_records) + " records kept (" +
           std::to_string(l.kept_bytes) + " bytes)";
    if (l.bytes > l.kept_bytes) {
      out += "; lost: the " + std::to_string(l.bytes - l.kept_bytes) +
             " bytes after them";
      if (l.dropped_records > 0) {
        out += ", which held at least " + std::to_string(l.dropped_records) +
               " whole records (revisions " +
               std::to_string(l.first_dropped_revision) + " to " +
               std::to_string(l.last_dropped_revision) + ")";
      }
    }
    out += "\n";
  }
  out += "writes acknowledged after revision " +
         std::to_string(r.recovered_revision) +
         " are lost; clients watching from a later resourceVersion must "
         "relist\n";
  return out;
}

}  // namespace kmock::store
