// tar inside containers, for `kubectl cp`: kubectl copies a file into a
// pod by running `tar -xmf - -C DIR` with the archive on stdin, and out
// of a pod with `tar cf - PATH`. The archive format (POSIX ustar, reading
// also GNU long names and pax path records, as Go's archive/tar writes
// them) and the busybox-style command over a container's files.
//
// Thread safety: pure functions; the command uses its run's filesystem.
#ifndef KMOCK_SIM_TAR_H_
#define KMOCK_SIM_TAR_H_

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sim/builtins.h"

namespace kmock::sim {

struct TarEntry {
  std::string name;  // relative, '/'-separated, no trailing '/'
  bool dir = false;
  std::string data;
};

// The archive of the entries, ending with two zero blocks.
std::string WriteTar(const std::vector<TarEntry>& entries);
// The entries of an archive; kInvalid with tar's words when it is not one.
Result<std::vector<TarEntry>> ReadTar(std::string_view archive);

// The `tar` command: c, x and t with f - (stdin or stdout), -C DIR, v,
// and the options kubectl passes (m, --no-same-owner,
// --no-same-permissions).
void TarCommand(CommandRun& r);

}  // namespace kmock::sim

#endif  // KMOCK_SIM_TAR_H_
