#include "server/stream/channel_exec.h"

#include <thread>

#include "server/stream/websocket.h"

namespace kmock::server::stream {
namespace {

constexpr size_t kMaxFrame = 16 * 1024 * 1024;
constexpr size_t kChunk = 32 * 1024;
constexpr char kStdin = 0, kError = 3;
constexpr unsigned char kClose = 255;

bool SendChannel(UpgradedConn& conn, char channel, std::string_view data) {
  for (size_t i = 0; i < data.size(); i += kChunk) {
    std::string msg(1, channel);
    msg.append(data.substr(i, kChunk));
    if (!conn.Write(EncodeWsFrame(kWsBinary, msg))) return false;
  }
  return true;
}

}  // namespace

ExecTransport::Got WebSocketExecTransport::Next(
    std::string* data, std::chrono::milliseconds wait) {
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
      if ((f.opcode != kWsBinary && f.opcode != kWsText) || f.payload.empty())
        continue;
      unsigned char ch = static_cast<unsigned char>(f.payload[0]);
      if (ch == kStdin) {
        data->assign(f.payload, 1, std::string::npos);
        return Got::kStdin;
      }
      if (ch == kClose && f.payload.size() > 1 && f.payload[1] == kStdin)
        return Got::kStdinClosed;
      continue;  // resizes
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

void WebSocketExecTransport::AwaitStart() {
  if (started_) return;
  started_ = true;
  std::this_thread::sleep_until(start_);
}

bool WebSocketExecTransport::Send(int fd, std::string_view data) {
  AwaitStart();
  return SendChannel(conn_, static_cast<char>(fd), data);
}

void WebSocketExecTransport::Finish(const ExecOutcome& outcome,
                                    const std::vector<std::string>& command) {
  AwaitStart();
  if (!SendChannel(conn_, kError, ExecStatusJson(outcome, command))) return;
  CloseWebSocket(conn_);
}

}  // namespace kmock::server::stream
