// Command-line flags of the load driver: "--name value" or "--name=value"
// (a name may repeat), and everything after a bare "--" kept as a trailing
// command. Plain value type; not synchronized (parse once, in main).
#ifndef KMOCK_BENCH_DRIVER_FLAGS_H_
#define KMOCK_BENCH_DRIVER_FLAGS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kmock::bench {

class Flags {
 public:
  // Parses args (the words after the mode). On malformed input returns false
  // and sets *error.
  static bool Parse(const std::vector<std::string>& args, Flags* out,
                    std::string* error);

  bool Has(const std::string& name) const;
  // The last value given for name, or def.
  std::string Get(const std::string& name, const std::string& def = "") const;
  std::vector<std::string> GetAll(const std::string& name) const;
  // Numeric values; a value that is not a number sets *error and returns def.
  double GetDouble(const std::string& name, double def,
                   std::string* error) const;
  int64_t GetInt(const std::string& name, int64_t def,
                 std::string* error) const;

  // The words after "--".
  const std::vector<std::string>& trailing() const { return trailing_; }

  // Flags that were given but not in allowed: most likely typos.
  std::vector<std::string> Unknown(const std::set<std::string>& allowed) const;

 private:
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> trailing_;
};

}  // namespace kmock::bench

#endif  // KMOCK_BENCH_DRIVER_FLAGS_H_
