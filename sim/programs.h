// The programs images bring (sim/images.yaml): servers that print their
// start-up lines and listen until stopped (nginx, redis-server, ...),
// entrypoint scripts that check their environment and run their
// arguments, perl computing pi for the Job tutorial, the python and node
// interpreters for one-liners, and agnhost's common verbs.
//
// Thread safety: pure functions of their arguments.
#ifndef KMOCK_SIM_PROGRAMS_H_
#define KMOCK_SIM_PROGRAMS_H_

#include <functional>
#include <string>

#include "common/clock.h"
#include "sim/builtins.h"
#include "sim/image_catalog.h"
#include "sim/process.h"

namespace kmock::sim {

struct ProgramContext {
  const ProcessSpec& spec;
  ShellState& sh;
  const ProgramProfile& program;
  TimePoint now;
};

// The program of an image that a command names ("nginx",
// "/usr/sbin/nginx" by its last part), or null.
const ProgramProfile* FindProgram(const ImageProfile* image,
                                  const std::string& name);

// Runs a program into run; run_command runs a further command line (an
// entrypoint's arguments).
void RunProgram(const ProgramContext& ctx, CommandRun& run,
                const std::function<void(CommandRun&)>& run_command);

// The memory a container's program needs, in bytes: its image's working
// set (memoryMiB), or what `stress --vm-bytes N` allocates (the memory
// limit tutorial's image).
int64_t MemoryNeedBytes(const ImageProfile* image,
                        const std::vector<std::string>& argv);

// pi to `digits` significant digits, rounded, as perl's bignum bpi(N)
// prints it ("3.14159...").
std::string PiDigits(int digits);

}  // namespace kmock::sim

#endif  // KMOCK_SIM_PROGRAMS_H_
