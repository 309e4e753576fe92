#include "server/stream/channel_exec.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include "server/stream/websocket.h"

namespace kmock::server::stream {
namespace {

constexpr size_t kMaxFrame = 16 * 1024 * 1024;
constexpr size_t kChunk = 32 * 1024;
constexpr char kStdin = 0, kStdout = 1, kStderr = 2, kError = 3;
constexpr unsigned char kClose = 255;

bool SendChannel(UpgradedConn& conn, char channel, std::string_view data) {
  if (data.empty()) return true;
  for (size_t i = 0; i < data.size(); i += kChunk) {
    std::string msg(1, channel);
    msg.append(data.substr(i, kChunk));
    if (!conn.Write(EncodeWsFrame(kWsBinary, msg))) return false;
  }
  return true;
}

// The client's channel messages, one at a time, out of its frames: pings
// are answered, text and binary frames both carry a message.
class ChannelReader {
 public:
  enum class Got { kMessage, kNothing, kEnd };
  explicit ChannelReader(UpgradedConn& conn) : conn_(conn) {}

  // The next message (its channel byte first), kNothing when none came
  // within `wait`, kEnd when the client closed or broke the stream.
  Got Next(std::string* message, std::chrono::milliseconds wait) {
    bool read_once = false;
    while (true) {
      WsFrame f;
      auto used = ParseWsFrame(buf_, kMaxFrame, &f);
      if (!used.ok()) return Got::kEnd;
      if (*used > 0) {
        buf_.erase(0, *used);
        if (f.opcode == kWsClose) return Got::kEnd;
        if (f.opcode == kWsPing) {
          conn_.Write(EncodeWsFrame(kWsPong, f.payload));
          continue;
        }
        if ((f.opcode == kWsBinary || f.opcode == kWsText) &&
            !f.payload.empty()) {
          *message = std::move(f.payload);
          return Got::kMessage;
        }
        continue;
      }
      if (read_once) return Got::kNothing;
      char tmp[16384];
      int n = conn_.Read(tmp, sizeof(tmp), wait);
      if (n < 0) return Got::kEnd;
      if (n == 0) return Got::kNothing;
      buf_.append(tmp, static_cast<size_t>(n));
      read_once = true;
    }
  }

 private:
  UpgradedConn& conn_;
  std::string buf_;
};

// Reads the client's messages until stdin is complete. Returns false when
// the connection ended.
bool ReadStdin(UpgradedConn& conn, bool v5, std::string* in,
               const std::function<bool()>& stopping) {
  ChannelReader reader(conn);
  // Without v5's close signal, stdin ends when the client stops writing.
  const auto idle_limit = std::chrono::milliseconds(300);
  auto idle = std::chrono::milliseconds(0);
  std::string msg;
  while (!stopping()) {
    switch (reader.Next(&msg, std::chrono::milliseconds(100))) {
      case ChannelReader::Got::kEnd:
        return false;
      case ChannelReader::Got::kNothing:
        idle += std::chrono::milliseconds(100);
        if (!v5 && idle >= idle_limit) return true;
        continue;
      case ChannelReader::Got::kMessage:
        break;
    }
    idle = std::chrono::milliseconds(0);
    unsigned char ch = static_cast<unsigned char>(msg[0]);
    if (ch == kStdin) in->append(msg, 1, std::string::npos);
    if (ch == kClose && msg.size() > 1 && msg[1] == kStdin) return true;
  }
  return true;
}

}  // namespace

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

void Finish(UpgradedConn& conn, const ExecOutcome& outcome,
            const std::vector<std::string>& command) {
  if (!SendChannel(conn, kError, ExecStatusJson(outcome, command))) return;
  std::string close_payload = {static_cast<char>(0x03),
                               static_cast<char>(0xE8)};
  conn.Write(EncodeWsFrame(kWsClose, close_payload));
  // Let the client read the close before the connection goes.
  char tmp[4096];
  for (int i = 0; i < 10; ++i) {
    if (conn.Read(tmp, sizeof(tmp), std::chrono::milliseconds(100)) < 0) break;
  }
}

}  // namespace

void ServeWebSocketShell(UpgradedConn& conn, LineShell& shell,
                         const std::vector<std::string>& command,
                         const std::function<bool()>& stopping) {
  if (!SendChannel(conn, kStdout, shell.Prompt())) return;
  ChannelReader reader(conn);
  std::string msg, line;
  bool done = false;
  while (!done && !stopping()) {
    switch (reader.Next(&msg, std::chrono::milliseconds(200))) {
      case ChannelReader::Got::kEnd:
        return;
      case ChannelReader::Got::kNothing:
        continue;
      case ChannelReader::Got::kMessage:
        break;
    }
    {
      unsigned char ch = static_cast<unsigned char>(msg[0]);
      if (ch == kClose) {
        done = true;  // stdin closed
        break;
      }
      if (ch != kStdin) continue;  // resize and others
      std::string echo;
      for (size_t i = 1; i < msg.size() && !done; ++i) {
        char c = msg[i];
        if (c == '\r' || c == '\n') {
          echo += "\r\n";
          if (!SendChannel(conn, kStdout, echo)) return;
          echo.clear();
          std::string out = ToTerminal(shell.Line(line));
          line.clear();
          if (shell.Exited()) {
            done = true;
            if (!SendChannel(conn, kStdout, out)) return;
            break;
          }
          if (!SendChannel(conn, kStdout, out + shell.Prompt())) return;
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
          while (i + 1 < msg.size() &&
                 !std::isalpha(static_cast<unsigned char>(msg[i + 1])) &&
                 msg[i + 1] != '~')
            ++i;
          if (i + 1 < msg.size()) ++i;
        } else if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') {
          line += c;
          echo += c;
        }
      }
      if (!echo.empty() && !SendChannel(conn, kStdout, echo)) return;
    }
  }
  ExecOutcome outcome;
  outcome.exit_code = shell.Exited() ? shell.ExitCode() : 0;
  Finish(conn, outcome, command);
}

void ServeWebSocketExec(UpgradedConn& conn, bool v5, const ExecStreams& streams,
                        const std::vector<std::string>& command,
                        const ExecRunner& run,
                        const std::function<bool()>& stopping) {
  std::string in;
  if (streams.in && !ReadStdin(conn, v5, &in, stopping)) return;
  ExecOutcome outcome = run(in);
  if (streams.tty) {
    // A terminal has one output stream, with \r\n line ends.
    outcome.out = ToTerminal(outcome.out + outcome.err);
    outcome.err.clear();
  }
  if (streams.out && !SendChannel(conn, kStdout, outcome.out)) return;
  if (streams.err && !SendChannel(conn, kStderr, outcome.err)) return;
  Finish(conn, outcome, command);
}

}  // namespace kmock::server::stream
