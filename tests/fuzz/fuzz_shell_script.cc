// Fuzz target: the shell scripts a container's command line holds
// (`sh -c "..."`), parsed and run in a simulated busybox container on a
// fixed clock, as `kubectl exec` runs them and as a container's process
// runs them until it waits.
//
// Beyond not crashing: a run ends (the instruction budget stops busy
// loops), its exit status is 0-255, and a process that sleeps wakes later
// than it started.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sim/container.h"
#include "sim/image_catalog.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kmock;       // NOLINT(build/namespaces)
  using namespace kmock::sim;  // NOLINT(build/namespaces)
  std::string script(reinterpret_cast<const char*>(data), size);
  (void)ParseScript(script);
  ProcessSpec spec;
  spec.argv = {"sh", "-c", script};
  spec.image = ImageCatalog::Builtin().Find("docker.io/library/busybox");
  spec.hostname = "fuzz";
  spec.start = TimePoint(std::chrono::seconds(1700000000));
  Container c(spec, [] {
    return Filesystem::Files{{"/etc/config/key", "value"}};
  });
  c.Advance(spec.start + std::chrono::seconds(5));
  if (c.state() == Process::State::kSleeping && c.wake() < spec.start) abort();
  if (c.state() == Process::State::kExited &&
      (c.exit_code() < 0 || c.exit_code() > 255))
    abort();
  auto r = c.Exec({"sh", "-c", script}, spec.start, "input\n");
  if (r.exit_code < 0 || r.exit_code > 255) abort();
  return 0;
}
