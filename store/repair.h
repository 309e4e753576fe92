// Checking and repairing a store on disk whose write-ahead log is damaged
// (`kubemock repair`). The store refuses to open when its log is damaged
// (rocks_storage.cc: WALRecoveryMode::kAbsoluteConsistency), since RocksDB
// would otherwise recover to the last good record without a word and lose
// acknowledged writes. RepairStore keeps a copy of the damaged store, opens
// it recovering to the last good record (kPointInTimeRecovery: everything
// after the damage is dropped, so the store stays consistent: no revision
// is skipped), writes what it recovered into table files so the damaged log
// is no longer needed, and reports what RocksDB let it see of the loss: the
// last revision recovered, each log's bytes and the whole records past the
// damage (found by reading the log again skipping the damage) with their
// revisions.
//
// Damage in table files or the manifest is reported, not repaired.
//
// Thread safety: run one at a time, on a store no server has open (the
// store's lock file is checked).
#ifndef KMOCK_STORE_REPAIR_H_
#define KMOCK_STORE_REPAIR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace kmock::store {

struct LogLoss {
  std::string file;         // e.g. "000012.log"
  uint64_t bytes = 0;       // its size
  uint64_t kept_bytes = 0;  // through the end of its last kept record
  int64_t kept_records = 0;
  // Whole records found past the damage, dropped with it.
  int64_t dropped_records = 0;
  int64_t first_dropped_revision = 0;  // 0: none carried a revision
  int64_t last_dropped_revision = 0;
};

struct RepairReport {
  bool damaged = false;            // false: the store opened strictly
  std::string damage;              // RocksDB's words for the damage
  std::string copy_dir;            // the damaged store, as it was
  int64_t recovered_revision = 0;  // the store's revision after repair
  std::vector<LogLoss> logs;       // the logs that were replayed
};

// Checks the store at `path` and, when its log is damaged, repairs it,
// first copying it to `copy_dir` (which must not exist; table files are
// hard-linked when possible). An error when there is no store at path, a
// server has it open, or it cannot be repaired (then nothing was changed
// but the copy).
Result<RepairReport> RepairStore(const std::string& path,
                                 const std::string& copy_dir);

// The report in words, one finding a line.
std::string DescribeRepair(const RepairReport& report);

}  // namespace kmock::store

#endif  // KMOCK_STORE_REPAIR_H_
