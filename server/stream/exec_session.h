// One `kubectl exec` session, whatever protocol carries its streams
// (WebSocket channels: channel_exec.h; SPDY streams: spdy_exec.h): a
// command run once its input is whole, or an interactive shell run a line
// at a time, with output and the final status sent back.
//
// The command runs once its input is whole (stdin closed, or none asked
// for): the simulated programs read stdin to its end before they print.
//
// Thread safety: one session per connection, on one thread.
#ifndef KMOCK_SERVER_STREAM_EXEC_SESSION_H_
#define KMOCK_SERVER_STREAM_EXEC_SESSION_H_

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kmock::server::stream {

// The streams the client asked for (the request's stdin, stdout, stderr
// and tty parameters).
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

// The metav1.Status of the status stream for an outcome.
std::string ExecStatusJson(const ExecOutcome& outcome,
                           const std::vector<std::string>& command);

// What an exec session reads and writes, whatever carries it.
class ExecTransport {
 public:
  enum class Got { kStdin, kStdinClosed, kNothing, kEnd };
  virtual ~ExecTransport() = default;
  // The next piece of standard input; other streams (terminal resizes)
  // are consumed silently. kEnd: the client went away.
  virtual Got Next(std::string* data, std::chrono::milliseconds wait) = 0;
  // Whether the client says when its stdin ends; if not, stdin ends when
  // the client stops writing for a moment.
  virtual bool MarksStdinEnd() const = 0;
  // Output on fd 1 (stdout) or 2 (stderr).
  virtual bool Send(int fd, std::string_view data) = 0;
  // Sends the final status and ends the session.
  virtual void Finish(const ExecOutcome& outcome,
                      const std::vector<std::string>& command) = 0;
};

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
void ServeShell(ExecTransport& transport, LineShell& shell,
                const std::vector<std::string>& command,
                const std::function<bool()>& stopping);

// Serves one command. stopping() is asked while waiting for input.
void ServeExec(ExecTransport& transport, const ExecStreams& streams,
               const std::vector<std::string>& command, const ExecRunner& run,
               const std::function<bool()>& stopping);

}  // namespace kmock::server::stream

#endif  // KMOCK_SERVER_STREAM_EXEC_SESSION_H_
