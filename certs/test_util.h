// Helpers shared by the certs tests: a scratch directory removed on exit.
//
// Thread safety: not thread-safe; one per test.
#ifndef KMOCK_CERTS_TEST_UTIL_H_
#define KMOCK_CERTS_TEST_UTIL_H_

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace kmock::certs {

class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl =
        std::filesystem::temp_directory_path() / "kmock-certs-XXXXXX";
    const char* made = mkdtemp(tmpl.data());
    path_ = made != nullptr ? made : "";
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace kmock::certs

#endif  // KMOCK_CERTS_TEST_UTIL_H_
