// Start-up timing: exec a server, wait until it answers 200 over TLS, and
// report the wall time and the CPU it used to get there. The server keeps
// running afterwards (its stdout goes to a file, not to us), so the caller
// can use it and must stop it by the PID this reports. Not thread-safe: it
// forks and waits on the child.
#ifndef KMOCK_BENCH_DRIVER_STARTUP_PROBE_H_
#define KMOCK_BENCH_DRIVER_STARTUP_PROBE_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kmock::bench {

struct StartupOptions {
  std::vector<std::string> command;  // argv of the server
  std::string stdout_file;           // the server's stdout (required)
  std::string stderr_file;           // the server's stderr; empty: ours
  std::string pid_file;  // written right after fork, for the caller's cleanup
  // Either wait for a stdout line starting with ready_prefix and take the
  // port from the https://HOST:PORT URL in it, or poll port from the start.
  std::string ready_prefix;
  int port = 0;
  std::string path = "/readyz";  // must answer 200 (no certificate checks)
  double timeout_seconds = 60;
};

struct StartupResult {
  bool ok = false;
  std::string error;
  pid_t pid = 0;
  int port = 0;
  double line_ms = 0;   // exec to the ready line (ready_prefix mode)
  double ready_ms = 0;  // exec to the first 200
  double cpu_stat_ms = 0;
  double cpu_schedstat_ms = 0;
  int64_t start_realtime_ns = 0;  // CLOCK_REALTIME just before fork
};

// Starts the server and waits. On failure the server is stopped (SIGTERM,
// then SIGKILL after 5 s) before returning.
StartupResult RunStartup(const StartupOptions& options);

}  // namespace kmock::bench

#endif  // KMOCK_BENCH_DRIVER_STARTUP_PROBE_H_
