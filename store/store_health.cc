#include "store/store_health.h"

#include <cstdio>

namespace kmock::store {
namespace {

// In the messages of FromRocks for damage; kept short and plain since
// clients see it in 500 answers.
constexpr std::string_view kDamageMarker = "damaged store: ";

const char* ReasonName(rocksdb::BackgroundErrorReason reason) {
  switch (reason) {
    case rocksdb::BackgroundErrorReason::kFlush:
    case rocksdb::BackgroundErrorReason::kFlushNoWAL:
      return "writing a table file";
    case rocksdb::BackgroundErrorReason::kCompaction:
      return "compacting table files";
    case rocksdb::BackgroundErrorReason::kWriteCallback:
    case rocksdb::BackgroundErrorReason::kMemTable:
      return "writing the log";
    case rocksdb::BackgroundErrorReason::kManifestWrite:
    case rocksdb::BackgroundErrorReason::kManifestWriteNoWAL:
      return "writing the manifest";
  }
  return "background work";
}

}  // namespace

Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  std::string msg(what);
  msg += ": ";
  if (s.IsCorruption() || s.IsIOError()) msg += kDamageMarker;
  msg += s.ToString();
  return InternalError(std::move(msg));
}

bool IsDamage(const Status& s) {
  return s.code() == StatusCode::kInternal &&
         s.message().find(kDamageMarker) != std::string::npos;
}

void StoreHealth::Report(const std::string& what) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!report_.empty()) return;
    report_ = what;
  }
  // Once, so that the operator learns of it from the log too.
  std::fprintf(stderr, "kubemock: the store is damaged: %s%s%s\n", what.c_str(),
               hint_.empty() ? "" : "; ", hint_.c_str());
}

void StoreHealth::Observe(const Status& s) {
  if (IsDamage(s)) Report(s.message());
}

Status StoreHealth::Check() const {
  std::lock_guard<std::mutex> l(mu_);
  if (report_.empty()) return Status::Ok();
  std::string msg = report_;
  if (!hint_.empty()) msg += "; " + hint_;
  return Status(StatusCode::kServiceUnavailable, std::move(msg));
}

void StoreHealth::OnBackgroundError(rocksdb::BackgroundErrorReason reason,
                                    rocksdb::Status* bg_error) {
  if (bg_error == nullptr || bg_error->ok()) return;
  Report(std::string("the store failed ") + ReasonName(reason) +
         " and refuses writes: " + bg_error->ToString());
}

}  // namespace kmock::store
