// The commands every simulated container with a shell has (busybox's
// applets and the shell's own builtins): echo, printf, sleep, cat, ls, env,
// date, ps, test, ... Each reads its arguments and standard input and
// leaves its output, status and effect (a sleep, running for good, an
// exit) in a CommandRun; none waits on anything real.
//
// Thread safety: pure functions of their CommandRun.
#ifndef KMOCK_SIM_BUILTINS_H_
#define KMOCK_SIM_BUILTINS_H_

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/clock.h"
#include "sim/filesystem.h"

namespace kmock::sim {

// The shell state commands read and change.
struct ShellState {
  std::map<std::string, std::string> vars;
  std::map<std::string, bool> exported;  // names passed to programs
  std::string cwd = "/";
  Filesystem* fs = nullptr;
  TimePoint now{};  // the process's time
  std::string hostname;
  std::string shell = "busybox";  // busybox, dash, bash: error wording
  // What `ps` lists: pid and command line of each process.
  std::vector<std::pair<int64_t, std::string>> processes;
  // A container sharing its node's process namespace (hostPID): `ps`
  // lists the node's processes instead, as this gives them at the time.
  std::function<std::vector<std::pair<int64_t, std::string>>()> host_processes;
};

struct CommandRun {
  std::vector<std::string> argv;
  std::string in;
  std::string out, err;
  int status = 0;
  enum class Effect { kNone, kSleep, kForever, kExit } effect = Effect::kNone;
  std::chrono::milliseconds sleep{0};
  std::vector<int> ports;  // a server program: the ports it listens on
  // What the server on a port speaks (sim/servers.h); absent: nothing.
  std::map<int, std::string> protocols;
  ShellState* shell = nullptr;
};

using BuiltinFn = void (*)(CommandRun&);
// The builtin of that name (a path such as /bin/ls is looked up by its
// last part), or null.
BuiltinFn FindBuiltin(const std::string& name);

// The last part of a path: the name a program is known by.
std::string BaseName(const std::string& path);

// "sh: foo: not found" in the wording of the shell.
std::string NotFoundMessage(const std::string& shell, const std::string& cmd);

// Parses a sleep duration ("30", "1.5", "2m", "infinity"); false if bad.
bool ParseSleep(const std::string& arg, std::chrono::milliseconds* out,
                bool* forever);

// strftime on a moment in UTC.
std::string FormatTime(TimePoint t, const std::string& format);

}  // namespace kmock::sim

#endif  // KMOCK_SIM_BUILTINS_H_
