// StoreHealth: what a store knows of its own damage, for readiness
// (Storage::Health) and for the messages of the reads and writes that meet
// it. Damage is latched: the first report is kept until the store is
// reopened, since neither a damaged table nor a failed log write mends by
// itself (RocksDB stays read-only after a background error; the write path
// refuses writes after a failed commit).
//
// It is also the store's RocksDB event listener: background errors (a flush
// or a compaction that found damage or could not write, a full disk) are
// reported through it.
//
// Reads turn RocksDB errors into Status with FromRocks below, which marks
// damage (corruption, I/O errors) so that IsDamage can tell it from other
// internal errors without RocksDB's status at hand.
//
// Thread safety: every method may be called from any thread.
#ifndef KMOCK_STORE_STORE_HEALTH_H_
#define KMOCK_STORE_STORE_HEALTH_H_

#include <rocksdb/listener.h>
#include <rocksdb/status.h>

#include <mutex>
#include <string>
#include <string_view>

#include "common/status.h"

namespace kmock::store {

// kInternal with "<what>: <RocksDB's message>"; corruption and I/O errors
// also carry the marker IsDamage looks for.
Status FromRocks(const rocksdb::Status& s, std::string_view what);
// Whether a Status made by FromRocks reports damaged or unreadable data.
bool IsDamage(const Status& s);

class StoreHealth final : public rocksdb::EventListener {
 public:
  // hint: appended to every report (what the operator should do, e.g.
  // which repair command to run); may be empty.
  explicit StoreHealth(std::string hint) : hint_(std::move(hint)) {}

  // Latches `what` unless something was latched before (and then prints
  // it once on stderr).
  void Report(const std::string& what);
  // Reports s if it is damage (IsDamage).
  void Observe(const Status& s);
  // OK, or kServiceUnavailable with the first report and the hint.
  Status Check() const;
  const std::string& hint() const { return hint_; }

  // rocksdb::EventListener.
  const char* Name() const override { return "kmock.StoreHealth"; }
  void OnBackgroundError(rocksdb::BackgroundErrorReason reason,
                         rocksdb::Status* bg_error) override;

 private:
  const std::string hint_;
  mutable std::mutex mu_;
  std::string report_;  // guarded by mu_; empty while healthy
};

}  // namespace kmock::store

#endif  // KMOCK_STORE_STORE_HEALTH_H_
