// One instance of a simulated container: its files, its process and its
// log. A kubelet makes one when it starts a container, advances it on
// every sync of the pod (Advance), and keeps the instance before a restart
// for `kubectl logs --previous`; the API server reads the log and runs
// `kubectl exec` commands through a ContainerDirectory.
//
// The log keeps what the process printed, line by line with the time and
// stream of each, up to kMaxLogBytes (older lines go first, as a kubelet
// rotates a container's log).
//
// Thread safety: every method may be called from any thread (one mutex).
#ifndef KMOCK_SIM_CONTAINER_H_
#define KMOCK_SIM_CONTAINER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sim/process.h"
#include "sim/servers.h"

namespace kmock::sim {

// A filesystem mounted into a container at a path: a shared emptyDir, a
// volume's files, or the node's directory `root` (hostPath).
struct MountSpec {
  std::string path;
  std::shared_ptr<Filesystem> fs;
  std::string root = "/";
};
using MountList = std::vector<MountSpec>;

struct LogLine {
  TimePoint at;
  int fd = 1;        // 1 stdout, 2 stderr
  std::string text;  // ends with '\n' unless the process has not ended it
};

struct ContainerLog {
  std::vector<LogLine> lines;
  // Lines dropped from the front since the container started: a reader
  // that remembers first + lines.size() can ask for what came after.
  uint64_t first = 0;
};

class Container;

// A TCP connection to a port of a container's program (kubectl
// port-forward): what is sent reaches the program's server, what it
// logs goes to the container's log.
class PortConnection {
 public:
  PortConnection(std::shared_ptr<Container> c, std::unique_ptr<Connection> s)
      : container_(std::move(c)), server_(std::move(s)) {}
  // The server's answer to `data` at `now`.
  std::string Send(std::string_view data, TimePoint now);
  bool closed() const;

 private:
  std::shared_ptr<Container> container_;
  std::unique_ptr<Connection> server_;
};

class Container {
 public:
  static constexpr size_t kMaxLogBytes = 10 * 1024 * 1024;

  // spec.fs is replaced by the container's own files: the image's, then
  // what `files` gives (/etc/hosts, volumes), both written when the files
  // are first used; `mounts` mounted and the `read_only` paths made
  // read-only.
  Container(ProcessSpec spec, std::function<Filesystem::Files()> files,
            const MountList& mounts = {},
            const std::vector<std::string>& read_only = {});

  // Runs the process up to `now`.
  void Advance(TimePoint now);

  Process::State state() const;
  TimePoint wake() const;
  int exit_code() const;
  TimePoint exited_at() const;
  std::string error() const;
  std::vector<int> ports() const;

  // The log from line number `from` on (counting every line ever logged).
  ContainerLog Log(uint64_t from = 0) const;
  // The number the next logged line will have (where a follower starts).
  uint64_t LogEnd() const;

  // An interactive shell in the container, and one line run in it.
  std::unique_ptr<Process::Shell> OpenShell() const;
  std::string RunShellLine(Process::Shell& shell, const std::string& line,
                           TimePoint now);

  // kubectl attach to the program's terminal: whether the program is a
  // shell reading the stdin its container keeps open (`kubectl run -it
  // -- sh`), its prompt, and a line typed into it, whose echo and output
  // the log keeps too. When that shell exits, the container's process has
  // ended: the exit listener is told, so its kubelet syncs at once.
  bool ReadsTerminal() const;
  std::string TerminalPrompt();
  std::string TypeLine(const std::string& line, TimePoint now);
  // Whether the image has a profile (sim/images.yaml): of a program we
  // know nothing about, nothing can be asked.
  bool profiled() const { return spec_.image != nullptr; }
  // The command line its process runs ("nginx -g daemon off;").
  std::string command() const;
  // What the metrics API reports: the memory its program needs
  // (sim/programs.h MemoryNeedBytes), and how many requests its servers
  // answered since `t` (the last 4096 are remembered).
  int64_t MemoryNeed() const;
  size_t RequestsSince(TimePoint t) const;

  // Ends the process (the kubelet killed it: a failed liveness probe).
  void Stop(int exit_code, TimePoint now);

  // Called, without the container's lock, when the process ends other
  // than in Advance.
  void SetExitListener(std::function<void()> listener);

  // A connection to `port` from `peer`, or null when the program does not
  // listen there (not running, or another port).
  static std::unique_ptr<PortConnection> Connect(
      const std::shared_ptr<Container>& c, int port, const std::string& peer);

  // Runs a command in the container (kubectl exec, exec probes).
  Process::ExecResult Exec(const std::vector<std::string>& argv, TimePoint now,
                           const std::string& stdin_data = "");

 private:
  friend class PortConnection;
  void Append(const Output& o);  // REQUIRES: mu_ held

  mutable std::mutex mu_;
  Filesystem fs_;
  ProcessSpec spec_;
  std::unique_ptr<Process> process_;
  std::unique_ptr<Process::Shell> terminal_;  // the attached shell
  std::function<void()> exit_listener_;
  std::deque<TimePoint> served_;  // when each recent request came
  std::deque<LogLine> log_;
  uint64_t first_ = 0;
  size_t bytes_ = 0;
  bool open_line_[3] = {false, false, false};  // a partial line per stream
};

// Where the API server finds a pod's containers: the kubelets.
class ContainerDirectory {
 public:
  virtual ~ContainerDirectory() = default;
  // The current (or, with previous, the instance before it) of a
  // container of the pod ns/pod whose uid is pod_uid; null if none.
  virtual std::shared_ptr<Container> Find(const std::string& ns,
                                          const std::string& pod,
                                          const std::string& pod_uid,
                                          const std::string& container,
                                          bool previous) const = 0;
};

}  // namespace kmock::sim

#endif  // KMOCK_SIM_CONTAINER_H_
