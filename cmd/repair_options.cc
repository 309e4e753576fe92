#include "cmd/repair_options.h"

#include "cmd/serve_options.h"

namespace kmock::cmd {

Result<RepairOptions> ParseRepairOptions(const std::vector<std::string>& args) {
  RepairOptions o;
  o.data_dir = DefaultDataDir();
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      o.help = true;
    } else if (a.rfind("--data-dir=", 0) == 0) {
      o.data_dir = a.substr(11);
    } else if (a == "--data-dir") {
      if (i + 1 >= args.size())
        return Status(StatusCode::kBadRequest, "--data-dir needs a value");
      o.data_dir = args[++i];
    } else {
      return Status(StatusCode::kBadRequest, "unknown flag " + a);
    }
  }
  if (o.data_dir.empty())
    return Status(StatusCode::kBadRequest, "--data-dir is empty");
  return o;
}

std::string RepairHelp() {
  return R"(Usage: kubemock repair [--data-dir DIR]

Checks the store in DIR (as `kubemock serve --data-dir DIR` uses it) and, if
its write-ahead log is damaged (the server then refuses to start), recovers
everything up to the damage: the damaged store is first copied to
DIR/store.damaged-<time>, then the store keeps every write before the damage
and drops the rest. It prints the last revision recovered and what was lost:
each log's bytes after the last whole record kept and the revisions of the
whole records found past the damage. Run it with the server stopped.

Exit status: 0 when the store is healthy or was repaired, 1 when it cannot be
repaired (damage outside the log: restore DIR from a copy).

Flags:
  --data-dir DIR   the server's data directory (default as for serve)
)";
}

std::string DamagedCopyPath(
    const std::string& data_dir, std::time_t now,
    const std::function<bool(const std::string&)>& exists) {
  char stamp[32];
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  const std::string base = data_dir + "/store.damaged-" + stamp;
  std::string path = base;
  for (int n = 2; exists(path); ++n) path = base + "-" + std::to_string(n);
  return path;
}

std::string DamageHint(const std::string& data_dir) {
  return "stop the server and run `kubemock repair --data-dir " + data_dir +
         "` to recover what can be recovered (it keeps a copy of the damaged "
         "files and reports what was lost)";
}

}  // namespace kmock::cmd
