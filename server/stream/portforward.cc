#include "server/stream/portforward.h"

#include <cstdlib>
#include <map>

#include "server/stream/websocket.h"

namespace kmock::server::stream {
namespace {

constexpr auto kWait = std::chrono::milliseconds(200);

// A port header or list entry: 1-65535.
int ParsePort(const std::string& s) {
  if (s.empty() || s.size() > 5) return 0;
  for (char c : s)
    if (c < '0' || c > '9') return 0;
  int p = std::atoi(s.c_str());
  return p >= 1 && p <= 65535 ? p : 0;
}

struct Forward {
  uint32_t error = 0, data = 0;
  int port = 0;
  std::unique_ptr<ForwardedConn> conn;
  bool done = false;
};

}  // namespace

Result<std::vector<int>> ParsePortList(const std::vector<std::string>& values) {
  std::vector<int> ports;
  for (const std::string& v : values) {
    size_t i = 0;
    while (i <= v.size()) {
      size_t j = v.find(',', i);
      if (j == std::string::npos) j = v.size();
      std::string one = v.substr(i, j - i);
      int p = ParsePort(one);
      if (p == 0)
        return Status(StatusCode::kInvalid,
                      "unable to parse \"" + one + "\" as a port: " +
                          (one.empty() ? "invalid syntax"
                                       : "port must be between 1 and 65535"));
      ports.push_back(p);
      i = j + 1;
    }
  }
  if (ports.empty())
    return Status(StatusCode::kInvalid, "query parameter \"port\" is required");
  return ports;
}

void ServeSpdyPortForward(SpdySession& session, const PortDialer& dial,
                          const std::function<bool()>& stopping) {
  using Event = SpdySession::Event;
  std::map<std::string, Forward> by_request;
  std::map<uint32_t, std::string> request_of;  // stream -> requestid
  auto finish = [&](Forward& f) {
    if (f.done) return;
    f.done = true;
    if (f.data != 0) session.Send(f.data, "", true);
    if (f.error != 0) session.Send(f.error, "", true);
  };
  while (!stopping()) {
    Event e = session.Next(kWait);
    if (e.kind == Event::kEnd) return;
    if (e.kind == Event::kNothing) continue;
    if (e.kind == Event::kOpened) {
      std::string type = SpdyHeader(e.headers, "streamtype");
      std::string id = SpdyHeader(e.headers, "requestid");
      int port = ParsePort(SpdyHeader(e.headers, "port"));
      if ((type != "error" && type != "data") || port == 0) {
        session.Reset(e.stream, kSpdyRefusedStream);
        continue;
      }
      Forward& f = by_request[id];
      f.port = port;
      (type == "error" ? f.error : f.data) = e.stream;
      request_of[e.stream] = id;
      if (f.data == 0 || f.error == 0 || f.conn || f.done) continue;
      Result<std::unique_ptr<ForwardedConn>> conn = dial(port);
      if (!conn.ok()) {
        session.Send(f.error, conn.status().message());
        finish(f);
        continue;
      }
      f.conn = std::move(*conn);
      continue;
    }
    auto it = request_of.find(e.stream);
    if (it == request_of.end()) continue;
    Forward& f = by_request[it->second];
    if (e.kind == Event::kData && e.stream == f.data && f.conn && !f.done) {
      std::string answer = f.conn->Send(e.data);
      if (!answer.empty() && !session.Send(f.data, answer)) return;
      if (f.conn->closed()) finish(f);
    } else if ((e.kind == Event::kClosed && e.stream == f.data) ||
               e.kind == Event::kReset) {
      finish(f);
    }
  }
}

void ServeWebSocketPortForward(UpgradedConn& conn,
                               const std::vector<int>& ports,
                               const PortDialer& dial,
                               const std::function<bool()>& stopping) {
  auto send = [&](size_t channel, std::string_view data) {
    std::string msg(1, static_cast<char>(channel));
    msg.append(data);
    return conn.Write(EncodeWsFrame(kWsBinary, msg));
  };
  std::vector<std::unique_ptr<ForwardedConn>> targets(ports.size());
  for (size_t i = 0; i < ports.size(); ++i) {
    std::string port = {static_cast<char>(ports[i] & 0xFF),
                        static_cast<char>(ports[i] >> 8)};
    if (!send(2 * i, port) || !send(2 * i + 1, port)) return;
  }
  size_t open = 0;
  for (size_t i = 0; i < ports.size(); ++i) {
    Result<std::unique_ptr<ForwardedConn>> c = dial(ports[i]);
    if (!c.ok()) {
      if (!send(2 * i + 1, c.status().message())) return;
      continue;
    }
    targets[i] = std::move(*c);
    ++open;
  }
  std::string buf;
  while (open > 0 && !stopping()) {
    WsFrame f;
    Result<size_t> used = ParseWsFrame(buf, 16 * 1024 * 1024, &f);
    if (!used.ok()) return;
    if (*used == 0) {
      char tmp[16384];
      int n = conn.Read(tmp, sizeof(tmp), kWait);
      if (n < 0) return;
      buf.append(tmp, static_cast<size_t>(n));
      continue;
    }
    buf.erase(0, *used);
    if (f.opcode == kWsClose) break;
    if (f.opcode == kWsPing) {
      conn.Write(EncodeWsFrame(kWsPong, f.payload));
      continue;
    }
    if ((f.opcode != kWsBinary && f.opcode != kWsText) || f.payload.empty())
      continue;
    size_t channel = static_cast<unsigned char>(f.payload[0]);
    size_t i = channel / 2;
    if (channel % 2 != 0 || i >= targets.size() || !targets[i]) continue;
    std::string answer =
        targets[i]->Send(std::string_view(f.payload).substr(1));
    if (!answer.empty() && !send(channel, answer)) return;
    if (targets[i]->closed()) {
      targets[i].reset();
      --open;
    }
  }
  CloseWebSocket(conn);
}

}  // namespace kmock::server::stream
