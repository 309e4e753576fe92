// A simulated container process: the program a container's command
// describes (a shell script, a built-in command such as sleep or echo, or a
// program an image profile brings, such as nginx), run on the injected
// clock. Time inside the process moves only through what it does: `sleep
// 30` takes thirty seconds of the clock, everything else is instant. A
// process is advanced to a moment of the clock and stops when it must wait
// (a sleep that ends later), blocks for good (a server, `sleep infinity`)
// or exits, so a sleeping or serving container costs nothing until its
// next moment: no thread and no timer of its own.
//
// Everything it prints is returned as Output chunks stamped with the
// process's time, which is what the container's log holds.
//
// Thread safety: none; a Process belongs to one container and is used
// under its owner's lock.
#ifndef KMOCK_SIM_PROCESS_H_
#define KMOCK_SIM_PROCESS_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "sim/filesystem.h"
#include "sim/image_catalog.h"
#include "sim/script.h"

namespace kmock::sim {

struct Output {
  TimePoint at;
  int fd = 1;  // 1 stdout, 2 stderr
  std::string text;
};

// What one container runs and sees.
struct ProcessSpec {
  std::vector<std::string> argv;                         // ResolveArgv's result
  std::vector<std::pair<std::string, std::string>> env;  // in order
  std::string hostname;
  std::string ip;
  const ImageProfile* image = nullptr;  // null: an image we know nothing of
  Filesystem* fs = nullptr;             // not owned; outlives the process
  TimePoint start{};
  // The processes `ps` shows besides the program itself (pid, command).
  int64_t pid = 1;
  // hostPID: the node's processes, for `ps` (null: the container's own).
  std::function<std::vector<std::pair<int64_t, std::string>>()> host_processes;
  // The container keeps its standard input open (spec.stdin, as `kubectl
  // run -i` asks): a program that reads it waits instead of seeing its end.
  bool stdin_open = false;
};

// The command a container runs, as the runtime decides it: the pod's
// command (else the image's entrypoint) followed by the pod's args (else,
// when the pod gives no command, the image's cmd).
std::vector<std::string> ResolveArgv(const ImageProfile* image,
                                     const std::vector<std::string>& command,
                                     const std::vector<std::string>& args);

// The files an image starts with, plus the system files every container
// has (/etc/passwd, /etc/group, the usual directories).
Filesystem::Files ImageFiles(const ImageProfile* image);
void InstallImageFiles(const ImageProfile* image, Filesystem* fs);

// Whether argv starts a bare interactive shell: `sh`, `bash`, `ash` or
// `dash` (by any path), alone or with `-i`.
bool IsBareShell(const std::vector<std::string>& argv);

class Process {
 public:
  enum class State {
    kRunning,     // has work to do now
    kSleeping,    // waits until wake()
    kBlocked,     // runs until stopped (a server, `sleep infinity`)
    kExited,      // exit_code()
    kStartError,  // the program does not exist (exit code 128)
  };

  explicit Process(ProcessSpec spec);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  struct Impl;

  // Runs the program up to `now`; what it prints is appended to out.
  void Advance(TimePoint now, std::vector<Output>* out);

  State state() const { return state_; }
  TimePoint wake() const { return wake_; }
  int exit_code() const { return exit_code_; }
  // kExited: the moment (of the process's time) it ended.
  TimePoint exited_at() const { return exited_at_; }
  // kStartError: the runtime's message.
  const std::string& error() const { return error_; }
  // The TCP ports the program listens on.
  const std::vector<int>& ports() const { return ports_; }
  // What the server on a port speaks (sim/servers.h), or empty.
  std::string protocol(int port) const {
    auto it = protocols_.find(port);
    return it == protocols_.end() ? "" : it->second;
  }

  // Runs argv to completion at `now`, as `kubectl exec` (and an exec
  // probe) runs a command in the container: its output and exit status.
  // A command that would run for good is cut off (status 0).
  struct ExecResult {
    int exit_code = 0;
    std::string out, err;
    bool not_found = false;  // argv[0] is no program of the container
  };
  // An interactive shell in the container (`kubectl exec -it -- sh`): each
  // line runs when it is entered, in one shell whose variables and
  // directory persist between lines.
  class Shell {
   public:
    explicit Shell(const ProcessSpec& spec);
    ~Shell();
    // The prompt before the next line ("/ # ").
    std::string Prompt() const;
    // Runs one line at `now`; its output (stdout and stderr in order).
    std::string Line(const std::string& line, TimePoint now);
    bool exited() const { return exited_; }
    int exit_code() const { return exit_code_; }

   private:
    std::unique_ptr<Impl> impl_;
    bool exited_ = false;
    int exit_code_ = 0;
  };

  // Ends the process from outside (its terminal's shell exited).
  void End(int exit_code, TimePoint at) {
    state_ = State::kExited;
    exit_code_ = exit_code;
    exited_at_ = at;
  }

  static ExecResult Exec(const ProcessSpec& spec,
                         const std::vector<std::string>& argv, TimePoint now,
                         const std::string& stdin_data = "");

 private:
  std::unique_ptr<Impl> impl_;
  State state_ = State::kRunning;
  TimePoint wake_{};
  int exit_code_ = 0;
  TimePoint exited_at_{};
  std::string error_;
  std::vector<int> ports_;
  std::map<int, std::string> protocols_;
};

}  // namespace kmock::sim

#endif  // KMOCK_SIM_PROCESS_H_
