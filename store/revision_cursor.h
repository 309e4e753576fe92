// RevisionCursor: walks, in key order, the keys under a prefix that exist at
// one revision R, reading the RocksDB layout of rocks_format.h. It serves
// RocksStorage::List.
//
// Cost: it never scans "history" over a range. A key unchanged since R is
// served from "current" (its record there is its state at R). Only the keys
// written after R, taken from the "log" entries in (R, current], need a
// point lookup in "history" at R (and one in "log" for the value the
// history entry refers to); a key deleted after R is found that way too. So a
// page costs O(page + writes since R), and stepping over keys without reading
// them (counting) costs one "current" Next per key.
//
// Requirements: every log entry in (R, current] is present, i.e. R is
// above the compacted revision (or equals the current one), as
// RocksStorage::CheckReadRevision ensures; and keys contain no '\0'.
//
// Thread safety: one cursor is used by one thread. The snapshot and the
// column family handles must outlive it.
#ifndef KMOCK_STORE_REVISION_CURSOR_H_
#define KMOCK_STORE_REVISION_CURSOR_H_

#include <rocksdb/db.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "store/rocks_format.h"

namespace kmock::store {

// What a read sees: the database at one snapshot whose current revision is
// `current_revision`.
struct SnapshotView {
  rocksdb::DB* db = nullptr;
  const rocksdb::Snapshot* snapshot = nullptr;
  int64_t current_revision = 0;
  rocksdb::ColumnFamilyHandle* log = nullptr;
  rocksdb::ColumnFamilyHandle* current = nullptr;
  rocksdb::ColumnFamilyHandle* history = nullptr;
};

// Reads the value `key` was given at `revision` (a put), as of
// view.snapshot, into *out: from the log entry at that revision, or, for a
// revision whose log entry format 1 compaction removed, from the key's
// history record there. kInternal if neither holds it: compaction keeps
// every value a history entry or a later write refers to.
Status ReadValueAt(const SnapshotView& view,
                   const rocksdb::ReadOptions& options, std::string_view key,
                   int64_t revision, std::string* out);

class RevisionCursor {
 public:
  // Positions the cursor on the first key >= start (or >= prefix when start
  // is empty) that starts with prefix and exists at `revision`.
  // REQUIRES: start is empty or starts with prefix; revision <=
  // view.current_revision.
  static Result<std::unique_ptr<RevisionCursor>> Open(const SnapshotView& view,
                                                      std::string prefix,
                                                      std::string start,
                                                      int64_t revision);

  RevisionCursor(const RevisionCursor&) = delete;
  RevisionCursor& operator=(const RevisionCursor&) = delete;

  bool Valid() const { return valid_; }
  // REQUIRES: Valid(). Valid until the next call to Next.
  std::string_view key() const { return key_; }
  // The key's state at the revision, its value pointing into the cursor's
  // buffers (valid until Next). REQUIRES: Valid().
  Status Read(format::RecordView* out) const;
  // Moves to the next key that exists at the revision. REQUIRES: Valid().
  Status Next();

 private:
  RevisionCursor(const SnapshotView& view, std::string prefix,
                 int64_t revision);
  // Collects the keys in range written after the revision, sorted.
  Status LoadChangedKeys(std::string_view start);
  // Finds the state of `key` at the revision in "history"; sets *found.
  Status LookUpHistory(std::string_view key, bool* found);
  // Moves to the first key, from the current positions of both sources,
  // that exists at the revision.
  Status Settle();

  const SnapshotView view_;
  const std::string prefix_;
  const int64_t revision_;
  rocksdb::ReadOptions read_options_;
  std::unique_ptr<rocksdb::Iterator> current_it_;
  std::unique_ptr<rocksdb::Iterator> history_it_;  // opened on first lookup
  std::vector<std::string> changed_;               // sorted, unique
  size_t next_changed_ = 0;

  bool valid_ = false;
  bool from_current_ = false;  // key_ is current_it_'s entry
  std::string_view key_;
  std::string history_record_;  // the record when !from_current_
  std::string history_value_;   // its value, when the log holds it
};

}  // namespace kmock::store

#endif  // KMOCK_STORE_REVISION_CURSOR_H_
