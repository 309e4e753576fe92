// `kubectl exec` over WebSocket: the channel protocols v4.channel.k8s.io and
// v5.channel.k8s.io that kubectl 1.30+ speaks. Each binary message starts
// with its channel: 0 stdin, 1 stdout, 2 stderr, 3 the final status (a
// metav1.Status, with the exit code as a cause when it is not 0), 4 terminal
// resizes; v5 adds 255, by which the client says a channel of its own
// (stdin) is closed.
//
// The command runs once its input is whole (stdin closed, or none asked
// for): the simulated programs read stdin to its end before they print.
//
// Thread safety: one session per connection, on one thread.
#ifndef KMOCK_SERVER_STREAM_CHANNEL_EXEC_H_
#define KMOCK_SERVER_STREAM_CHANNEL_EXEC_H_

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kmock::server::stream {

// The raw bytes of a connection after a 101 Switching Protocols.
class UpgradedConn {
 public:
  virtual ~UpgradedConn() = default;
  // Up to n bytes: > 0 read, 0 nothing within the timeout, < 0 closed.
  virtual int Read(char* buf, size_t n, std::chrono::milliseconds timeout) = 0;
  virtual bool Write(std::string_view bytes) = 0;
};

struct ExecStreams {
  bool in = false, out = true, err = true, tty = false;
};

struct ExecOutcome {
  int exit_code = 0;
  std::string out, err;
  // Non-empty: the runtime could not run the command (its message).
  std::string failure;
};

using ExecRunner = std::function<ExecOutcome(const std::string& stdin_data)>;

// The metav1.Status of the status channel for an outcome.
std::string ExecStatusJson(const ExecOutcome& outcome,
                           const std::vector<std::string>& command);

// A shell that runs a line at a time (`kubectl exec -it -- sh`).
class LineShell {
 public:
  virtual ~LineShell() = default;
  virtual std::string Prompt() = 0;
  virtual std::string Line(const std::string& line) = 0;
  virtual bool Exited() = 0;
  virtual int ExitCode() = 0;
};

// Serves an interactive terminal session: echoes what is typed (the
// terminal is remote: the client's is raw), runs each line on Enter,
// Ctrl-C drops the line, Ctrl-D on an empty line or `exit` ends it.
void ServeWebSocketShell(UpgradedConn& conn, LineShell& shell,
                         const std::vector<std::string>& command,
                         const std::function<bool()>& stopping);

// Serves one exec session. stopping() is asked while waiting for input.
void ServeWebSocketExec(UpgradedConn& conn, bool v5, const ExecStreams& streams,
                        const std::vector<std::string>& command,
                        const ExecRunner& run,
                        const std::function<bool()>& stopping);

}  // namespace kmock::server::stream

#endif  // KMOCK_SERVER_STREAM_CHANNEL_EXEC_H_
