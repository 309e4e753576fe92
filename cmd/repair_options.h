// Command-line options of `kubemock repair`, and the hint the server gives
// when its store is damaged.
//
// Thread safety: plain values and pure functions; used once in main.
#ifndef KMOCK_CMD_REPAIR_OPTIONS_H_
#define KMOCK_CMD_REPAIR_OPTIONS_H_

#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"

namespace kmock::cmd {

struct RepairOptions {
  std::string data_dir;  // default: DefaultDataDir()
  bool help = false;
};

// Parses the arguments after "repair". Errors name the bad flag.
Result<RepairOptions> ParseRepairOptions(const std::vector<std::string>& args);

std::string RepairHelp();

// Where repair keeps the copy of a damaged store: DIR/store.damaged-<UTC time
// of `now`>, with "-2", "-3", ... added when `exists` says that name is taken
// (two repairs within one second must not collide).
std::string DamagedCopyPath(
    const std::string& data_dir, std::time_t now,
    const std::function<bool(const std::string&)>& exists);

// What the server tells the user when the store under data_dir is damaged:
// stop the server and run the repair command for that directory.
std::string DamageHint(const std::string& data_dir);

}  // namespace kmock::cmd

#endif  // KMOCK_CMD_REPAIR_OPTIONS_H_
