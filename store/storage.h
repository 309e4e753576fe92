// The storage interface: an MVCC key-value store in the role of etcd.
//
// It knows nothing about Kubernetes types: keys and values are bytes. Every
// successful write gets the next revision (a global counter starting at 1);
// each key records the revision that created it and the one that last
// modified it. History is kept until compacted, so a watch or a list can be
// served from any retained revision.
//
// Errors (Status codes):
//   kNotFound        the key does not exist (or did not at that revision)
//   kAlreadyExists   Create on a key that exists
//   kConflict        a compare-and-swap lost (expected mod revision differs)
//   kCompacted       the revision asked for is at or below the compacted one
//   kFutureRevision  the revision asked for is beyond the current one
//   kInternal        I/O failure; after one, every later write fails too
//
// Thread safety: every method may be called from any thread concurrently.
// Writes are serialised by one writer, which batches concurrent writes into
// one durable RocksDB write (group commit) and publishes their events to
// watchers in revision order before the writes return.
#ifndef KMOCK_STORE_STORAGE_H_
#define KMOCK_STORE_STORAGE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace kmock::store {

struct KeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t version = 0;  // number of writes since creation (1 after create)
};

// A key's state as Scan hands it over: views into the store's read
// buffers, valid only during the visit.
struct KeyValueView {
  std::string_view key;
  std::string_view value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t version = 0;
};

struct Event {
  enum class Type { kPut, kDelete };
  Type type = Type::kPut;
  // For kPut: the new key/value. For kDelete: the key with the value it held
  // before the delete, and mod_revision = the revision of the delete.
  KeyValue kv;
  // The value before this event; empty and has_prev=false for a create.
  bool has_prev = false;
  std::string prev_value;
  int64_t revision = 0;  // == kv.mod_revision
};

// Events are shared, immutable: every watcher of a commit gets the same one.
using EventPtr = std::shared_ptr<const Event>;

struct ListOptions {
  // Keys that start with prefix. ("" = every key.)
  std::string prefix;
  // Read at this revision; 0 = the current one. kCompacted if at or below
  // the compacted revision (except when it equals the current revision),
  // kFutureRevision if beyond the current one.
  int64_t revision = 0;
  // At most this many items; 0 = no limit.
  int64_t limit = 0;
  // Start at this key (inclusive); must start with prefix. Empty = at prefix.
  std::string start_key;
  // When the limit cuts the list short, count the keys after it
  // (ListResult::remaining). A reader walking all keys in chunks of its
  // own choosing has no use for the count, which costs a walk to the end.
  bool count_remaining = true;
};

struct ListResult {
  std::vector<KeyValue> items;
  int64_t revision = 0;   // the revision the list was read at
  bool more = false;      // more keys after the last item (limit hit)
  int64_t remaining = 0;  // how many keys remain after the last item
                          // (0 unless ListOptions::count_remaining)
};

// What Scan returns besides the items it visited: as ListResult.
struct ScanResult {
  int64_t revision = 0;
  bool more = false;
  int64_t remaining = 0;
};

// A stream of events for keys under a prefix.
class Watcher {
 public:
  virtual ~Watcher() = default;
  Watcher() = default;
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  // Waits up to `timeout` for the next events and appends them to `out`.
  // Returns OK with nothing appended on timeout. Returns an error when the
  // watch has ended: kFellBehind when the watcher fell too far behind (its
  // bounded queue overflowed; a new watch from the last revision it saw
  // picks up where it stopped), kCompacted when its start was compacted,
  // kServiceUnavailable when the store is shutting down. After an error,
  // the watcher is dead.
  virtual Status Next(std::chrono::milliseconds timeout,
                      std::vector<EventPtr>* out) = 0;
  // Ends the watch; a blocked Next returns kServiceUnavailable. Idempotent.
  virtual void Stop() = 0;
  // When nothing is queued: a revision through which every event under the
  // prefix has already been returned by Next, even if the newest commits
  // were under other prefixes (what a BOOKMARK may carry). 0 when events are
  // waiting or the store cannot tell.
  virtual int64_t IdleProgressRevision() { return 0; }
  // Called (from the writing thread, which may hold store locks: the
  // callback must only note the news and return) whenever events become
  // ready for Next or the watch ends. Replaces any earlier callback; an
  // empty function removes it. For waiting on many watches without a thread
  // each. Default: never called.
  virtual void SetReadyCallback(std::function<void()> callback) {
    (void)callback;
  }
};

struct StorageOptions {
  // Directory of the RocksDB database. Ignored when in_memory.
  std::string path;
  // Run on RocksDB's in-memory environment: nothing touches the disk.
  bool in_memory = false;
  // Durable writes (fsync before a write returns).
  bool sync = true;
  // Events a watcher may have queued before it is ended as too slow.
  size_t watcher_queue_limit = 10000;
  // Periodic compaction, as kube-apiserver does it: every interval, compact
  // to the revision that was current one interval ago (so at least one
  // interval of history is kept). 0 disables the loop; Compact still works.
  std::chrono::milliseconds compaction_interval{std::chrono::minutes(5)};
  // What to do about damage, appended to the errors that report it (at
  // open, and from Health), e.g. the repair command for this store.
  std::string damage_hint;
};

class Storage {
 public:
  virtual ~Storage() = default;
  Storage() = default;
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  virtual Result<KeyValue> Get(const std::string& key) = 0;
  virtual Result<ListResult> List(const ListOptions& options) = 0;
  // List without copying the items: each is handed to visit, in key
  // order, as views valid during the call (a LIST of 150,000 pods streams
  // its values from the store's buffers into the response). An error from
  // visit ends the scan and is returned. visit must not call the store.
  virtual Result<ScanResult> Scan(
      const ListOptions& options,
      const std::function<Status(const KeyValueView&)>& visit) = 0;

  // Creates key only if it is absent. Returns the stored KeyValue.
  virtual Result<KeyValue> Create(const std::string& key,
                                  std::string value) = 0;
  // Replaces the value if the key's mod_revision equals expected_mod_revision
  // (kConflict otherwise; kNotFound if absent). expected_mod_revision == 0
  // means unconditional (still kNotFound if absent). If the value is
  // byte-identical to the stored one, nothing is written and the stored
  // KeyValue is returned with its old revision.
  virtual Result<KeyValue> Update(const std::string& key, std::string value,
                                  int64_t expected_mod_revision) = 0;
  // Deletes the key if its mod_revision equals expected_mod_revision (0 =
  // unconditional). Returns the deleted KeyValue (its last value) with
  // mod_revision set to the revision of the delete.
  virtual Result<KeyValue> Delete(const std::string& key,
                                  int64_t expected_mod_revision) = 0;

  // Events for keys under prefix with revision > after_revision.
  // after_revision == 0 means "from now on". kCompacted if after_revision <
  // the compacted revision; kFutureRevision if beyond the current one.
  virtual Result<std::unique_ptr<Watcher>> Watch(const std::string& prefix,
                                                 int64_t after_revision) = 0;

  // Drops history at and below `revision` (the current value of every live
  // key stays). kCompacted if already compacted past it, kFutureRevision
  // if beyond the current revision.
  virtual Status Compact(int64_t revision) = 0;

  virtual int64_t CurrentRevision() = 0;
  virtual int64_t CompactedRevision() = 0;

  // Whether later writes are fsynced before they return (from
  // StorageOptions::sync at first). Unsynced writes still reach the
  // operating system before they return, so a killed process loses none of
  // them; a machine crash may. For work no client can have seen yet, such as
  // the cluster's bootstrap before the server listens; SyncAll ends it.
  virtual void SetSyncWrites(bool sync) = 0;
  // Makes every write so far durable (one fsync of the log).
  virtual Status SyncAll() = 0;
  // Whether the store can serve (readiness): OK, or kServiceUnavailable
  // saying what is wrong: damaged data met by a read, a write or
  // background work, or writes refused after a failed write (a full disk).
  // Once wrong it stays wrong until the store is reopened. Cheap: no I/O.
  virtual Status Health() { return Status::Ok(); }

  // Flushes, ends every watcher (kServiceUnavailable) and closes. Idempotent;
  // later calls fail with kServiceUnavailable.
  virtual void Close() = 0;
};

// Opens (creating if needed) the RocksDB-backed store.
Result<std::unique_ptr<Storage>> OpenRocksStorage(
    const StorageOptions& options);

}  // namespace kmock::store

#endif  // KMOCK_STORE_STORAGE_H_
