#include "driver/startup_probe.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "driver/https_load.h"
#include "driver/proc_cpu.h"

namespace kmock::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPollInterval = std::chrono::microseconds(200);

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The child: redirect stdout (and stderr), then exec. Never returns.
[[noreturn]] void ExecChild(const StartupOptions& o) {
  int out = open(o.stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0 || dup2(out, STDOUT_FILENO) < 0) _exit(126);
  close(out);
  if (!o.stderr_file.empty()) {
    int err = open(o.stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err < 0 || dup2(err, STDERR_FILENO) < 0) _exit(126);
    close(err);
  }
  std::vector<char*> argv;
  for (const auto& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  std::fprintf(stderr, "exec %s failed\n", argv[0]);
  _exit(127);
}

// Port of the https://HOST:PORT URL in line, or 0.
int PortFromLine(const std::string& line) {
  size_t at = line.find("https://");
  if (at == std::string::npos) return 0;
  size_t end = line.find_first_of(" \t/", at + 8);
  std::string hostport = line.substr(
      at + 8, end == std::string::npos ? std::string::npos : end - at - 8);
  size_t colon = hostport.rfind(':');
  if (colon == std::string::npos) return 0;
  return std::atoi(hostport.c_str() + colon + 1);
}

// The first line of path starting with prefix, or "" if none yet.
std::string FindLine(const std::string& path, const std::string& prefix) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0 && !in.eof()) return line;
  }
  return "";
}

bool ChildExited(pid_t pid, std::string* error) {
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) != pid) return false;
  *error = WIFEXITED(status)
               ? "server exited with status " +
                     std::to_string(WEXITSTATUS(status)) + " before ready"
               : "server killed by signal " + std::to_string(WTERMSIG(status)) +
                     " before ready";
  return true;
}

void StopChild(pid_t pid) {
  kill(pid, SIGTERM);
  for (int i = 0; i < 500; ++i) {
    if (waitpid(pid, nullptr, WNOHANG) == pid) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

}  // namespace

StartupResult RunStartup(const StartupOptions& o) {
  StartupResult r;
  if (o.command.empty() || o.stdout_file.empty()) {
    r.error = "a command and --stdout-file are required";
    return r;
  }
  timespec real{};
  clock_gettime(CLOCK_REALTIME, &real);
  r.start_realtime_ns = int64_t{real.tv_sec} * 1000000000 + real.tv_nsec;
  const auto t0 = Clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    r.error = "fork failed";
    return r;
  }
  if (pid == 0) ExecChild(o);
  r.pid = pid;
  if (!o.pid_file.empty()) {
    std::ofstream(o.pid_file) << pid << "\n";
  }
  const auto deadline =
      t0 + std::chrono::duration_cast<Clock::duration>(
               std::chrono::duration<double>(o.timeout_seconds));

  auto fail = [&](const std::string& why) {
    r.error = why;
    StopChild(pid);
    return r;
  };

  int port = o.port;
  if (!o.ready_prefix.empty()) {
    std::string line;
    while ((line = FindLine(o.stdout_file, o.ready_prefix)).empty()) {
      std::string error;
      if (ChildExited(pid, &error)) {
        r.error = error;
        return r;
      }
      if (Clock::now() > deadline) return fail("no ready line in time");
      std::this_thread::sleep_for(kPollInterval);
    }
    r.line_ms = MsSince(t0);
    port = PortFromLine(line);
    if (port <= 0) return fail("no https://HOST:PORT in: " + line);
  }
  r.port = port;

  Endpoint endpoint;
  endpoint.port = port;
  auto cli = MakeClient(endpoint);
  cli->set_connection_timeout(0, 100000);
  while (true) {
    auto res = cli->Get(o.path.c_str());
    if (res && res->status == 200) break;
    std::string error;
    if (ChildExited(pid, &error)) {
      r.error = error;
      return r;
    }
    if (Clock::now() > deadline)
      return fail("no 200 from " + o.path + " in time");
    std::this_thread::sleep_for(kPollInterval);
  }
  r.ready_ms = MsSince(t0);
  CpuTime cpu = ProcessTreeCpu(pid);
  r.cpu_stat_ms = cpu.stat_ms;
  r.cpu_schedstat_ms = cpu.schedstat_ms;
  r.ok = true;
  return r;
}

}  // namespace kmock::bench
