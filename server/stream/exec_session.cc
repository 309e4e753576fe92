#include "server/stream/exec_session.h"

#include <cctype>
#include <nlohmann/json.hpp>

namespace kmock::server::stream {

std::string ExecStatusJson(const ExecOutcome& outcome,
                           const std::vector<std::string>& command) {
  nlohmann::json st = {{"metadata", nlohmann::json::object()}};
  if (!outcome.failure.empty()) {
    st["status"] = "Failure";
    st["message"] =
        "Internal error occurred: error executing command in "
        "container: " +
        outcome.failure;
    st["reason"] = "InternalError";
    st["details"] = {{"causes",
                      {{{"message",
                         "error executing command in "
                         "container: " +
                             outcome.failure}}}}};
    st["code"] = 500;
    return st.dump();
  }
  if (outcome.exit_code == 0) {
    st["status"] = "Success";
    return st.dump();
  }
  std::string cmd = "[";
  for (size_t i = 0; i < command.size(); ++i)
    cmd += (i ? " " : "") + command[i];
  cmd += "]";
  std::string code = std::to_string(outcome.exit_code);
  st["status"] = "Failure";
  st["message"] =
      "command terminated with non-zero exit code: error "
      "executing command " +
      cmd + ", exit code " + code;
  st["reason"] = "NonZeroExitCode";
  st["details"] = {{"causes", {{{"reason", "ExitCode"}, {"message", code}}}}};
  return st.dump();
}

namespace {

std::string ToTerminal(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

// Reads the client's input until stdin is complete. Returns false when
// the connection ended.
bool ReadStdin(ExecTransport& t, std::string* in,
               const std::function<bool()>& stopping) {
  const auto step = std::chrono::milliseconds(100);
  const auto idle_limit = std::chrono::milliseconds(300);
  auto idle = std::chrono::milliseconds(0);
  std::string data;
  while (!stopping()) {
    switch (t.Next(&data, step)) {
      case ExecTransport::Got::kEnd:
        return false;
      case ExecTransport::Got::kStdinClosed:
        return true;
      case ExecTransport::Got::kNothing:
        idle += step;
        if (!t.MarksStdinEnd() && idle >= idle_limit) return true;
        continue;
      case ExecTransport::Got::kStdin:
        idle = std::chrono::milliseconds(0);
        in->append(data);
        continue;
    }
  }
  return true;
}

}  // namespace

void ServeShell(ExecTransport& t, LineShell& shell,
                const std::vector<std::string>& command,
                const std::function<bool()>& stopping) {
  if (!t.Send(1, shell.Prompt())) return;
  std::string data, line;
  bool done = false;
  while (!done && !stopping()) {
    switch (t.Next(&data, std::chrono::milliseconds(200))) {
      case ExecTransport::Got::kEnd:
        return;
      case ExecTransport::Got::kNothing:
        continue;
      case ExecTransport::Got::kStdinClosed:
        done = true;
        continue;
      case ExecTransport::Got::kStdin:
        break;
    }
    std::string echo;
    for (size_t i = 0; i < data.size() && !done; ++i) {
      char c = data[i];
      if (c == '\r' || c == '\n') {
        echo += "\r\n";
        if (!t.Send(1, echo)) return;
        echo.clear();
        std::string out = ToTerminal(shell.Line(line));
        line.clear();
        if (shell.Exited()) {
          done = true;
          if (!t.Send(1, out)) return;
          break;
        }
        if (!t.Send(1, out + shell.Prompt())) return;
      } else if (c == 0x7f || c == 0x08) {
        if (!line.empty()) {
          line.pop_back();
          echo += "\b \b";
        }
      } else if (c == 0x03) {
        echo += "^C\r\n" + shell.Prompt();
        line.clear();
      } else if (c == 0x04) {
        if (line.empty()) {
          echo += "\r\n";
          done = true;
        }
      } else if (c == 0x1b) {
        // Escape sequences (arrow keys) are not line editing here.
        while (i + 1 < data.size() &&
               !std::isalpha(static_cast<unsigned char>(data[i + 1])) &&
               data[i + 1] != '~')
          ++i;
        if (i + 1 < data.size()) ++i;
      } else if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') {
        line += c;
        echo += c;
      }
    }
    if (!echo.empty() && !t.Send(1, echo)) return;
  }
  ExecOutcome outcome;
  outcome.exit_code = shell.Exited() ? shell.ExitCode() : 0;
  t.Finish(outcome, command);
}

void ServeExec(ExecTransport& t, const ExecStreams& streams,
               const std::vector<std::string>& command, const ExecRunner& run,
               const std::function<bool()>& stopping) {
  std::string in;
  if (streams.in && !ReadStdin(t, &in, stopping)) return;
  ExecOutcome outcome = run(in);
  if (streams.tty) {
    // A terminal has one output stream, with \r\n line ends.
    outcome.out = ToTerminal(outcome.out + outcome.err);
    outcome.err.clear();
  }
  if (streams.out && !t.Send(1, outcome.out)) return;
  if (streams.err && !t.Send(2, outcome.err)) return;
  t.Finish(outcome, command);
}

}  // namespace kmock::server::stream
