// Helpers for the store's tests: temporary directories and compact string
// forms of store state ("PUT /a=1@3"), so each check is one ASSERT_EQ.
//
// Thread safety: TempDir is owned by one test; the printers are pure.
#ifndef KMOCK_STORE_STORAGE_TEST_UTIL_H_
#define KMOCK_STORE_STORAGE_TEST_UTIL_H_

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "store/storage.h"

namespace kmock::store::testing {

// A fresh directory under $TMPDIR, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "kmock-store-XXXXXX")
            .string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// "OK", "Conflict", ...: the code of a Status or Result, for ASSERT_EQ.
inline std::string CodeName(const Status& s) {
  return StatusCodeName(s.code());
}
template <typename T>
std::string CodeName(const Result<T>& r) {
  return StatusCodeName(r.status().code());
}

// "/a=1@3" (value and mod revision).
inline std::string KvString(const KeyValue& kv) {
  return kv.key + "=" + kv.value + "@" + std::to_string(kv.mod_revision);
}

// "/a=1 c2 m3 v2".
inline std::string KvFullString(const KeyValue& kv) {
  return kv.key + "=" + kv.value + " c" + std::to_string(kv.create_revision) +
         " m" + std::to_string(kv.mod_revision) + " v" +
         std::to_string(kv.version);
}

// "PUT /a=1@3", "PUT /a=2@4 prev=1", "DELETE /a@5 prev=2".
inline std::string EventString(const Event& e) {
  std::string s;
  if (e.type == Event::Type::kPut) {
    s = "PUT " + e.kv.key + "=" + e.kv.value + "@" + std::to_string(e.revision);
  } else {
    s = "DELETE " + e.kv.key + "@" + std::to_string(e.revision);
  }
  if (e.has_prev) s += " prev=" + e.prev_value;
  return s;
}

inline std::string EventsString(const std::vector<EventPtr>& events) {
  std::string s;
  for (const EventPtr& e : events) {
    if (!s.empty()) s += ", ";
    s += EventString(*e);
  }
  return s;
}

// "/a=1@3 /b=2@4 @rev=5" plus " more=N" when more is set.
inline std::string ListString(const ListResult& r) {
  std::string s;
  for (const KeyValue& kv : r.items) s += KvString(kv) + " ";
  s += "@rev=" + std::to_string(r.revision);
  if (r.more) s += " more=" + std::to_string(r.remaining);
  return s;
}

}  // namespace kmock::store::testing

#endif  // KMOCK_STORE_STORAGE_TEST_UTIL_H_
