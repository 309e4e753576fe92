#include "driver/proc_cpu.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kmock::bench {
namespace {

// Fields of /proc/<pid>/stat after the parenthesized command name, which may
// itself hold spaces: [0] is field 3 (state).
std::vector<std::string> StatFields(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return {};
  size_t close = line.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream rest(line.substr(close + 1));
  std::vector<std::string> fields;
  for (std::string f; rest >> f;) fields.push_back(f);
  return fields;
}

void AddOne(pid_t pid, CpuTime* total) {
  std::vector<std::string> f = StatFields(pid);
  if (f.size() < 13) return;
  // utime is field 14 and stime field 15, i.e. [11] and [12] here.
  const double ticks = std::stod(f[11]) + std::stod(f[12]);
  total->stat_ms += ticks * 1000.0 / sysconf(_SC_CLK_TCK);
  std::error_code ec;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& entry : std::filesystem::directory_iterator(tasks, ec)) {
    std::ifstream in(entry.path() / "schedstat");
    double run_ns = 0;
    if (in >> run_ns) total->schedstat_ms += run_ns / 1e6;
  }
}

}  // namespace

CpuTime ProcessTreeCpu(pid_t pid) {
  CpuTime total;
  AddOne(pid, &total);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t child = static_cast<pid_t>(std::stol(name));
    std::vector<std::string> f = StatFields(child);
    // ppid is field 4, [1] here.
    if (f.size() > 1 && f[1] == std::to_string(pid)) AddOne(child, &total);
  }
  return total;
}

}  // namespace kmock::bench
