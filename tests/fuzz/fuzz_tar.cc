// Fuzz target: a tar archive on the stdin of `tar -x` in a container, as
// `kubectl cp` into a pod sends it. The input is the archive.
//
// Beyond not crashing: what reads as an archive writes back to one that
// reads to the same entries, and extracting it into a container's files
// never fails other than with tar's own message.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sim/tar.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string in(reinterpret_cast<const char*>(data), size);
  auto entries = kmock::sim::ReadTar(in);
  if (entries.ok()) {
    auto again = kmock::sim::ReadTar(kmock::sim::WriteTar(*entries));
    if (!again.ok() || again->size() != entries->size()) abort();
    for (size_t i = 0; i < entries->size(); ++i) {
      const auto& a = (*entries)[i];
      const auto& b = (*again)[i];
      if (a.name != b.name || a.dir != b.dir || a.data != b.data) abort();
    }
  }
  kmock::sim::Filesystem fs;
  kmock::sim::ShellState sh;
  sh.fs = &fs;
  kmock::sim::CommandRun r;
  r.argv = {"tar", "-xmf", "-", "-C", "/tmp"};
  r.in = std::move(in);
  r.shell = &sh;
  kmock::sim::TarCommand(r);
  if (r.status != 0 && r.err.rfind("tar: ", 0) != 0) abort();
  return 0;
}
