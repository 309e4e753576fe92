// Command-line options of `kubemock repair`, and the hint the server gives
// when its store is damaged.
//
// Thread safety: plain values and pure functions; used once in main.
#ifndef KMOCK_CMD_REPAIR_OPTIONS_H_
#define KMOCK_CMD_REPAIR_OPTIONS_H_

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

// What the server tells the user when the store under data_dir is damaged:
// stop the server and run the repair command for that directory.
std::string DamageHint(const std::string& data_dir);

}  // namespace kmock::cmd

#endif  // KMOCK_CMD_REPAIR_OPTIONS_H_
