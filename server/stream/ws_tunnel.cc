#include "server/stream/ws_tunnel.h"

#include <algorithm>
#include <cstring>

#include "server/stream/websocket.h"

namespace kmock::server::stream {
namespace {
constexpr size_t kMaxMessage = 16 * 1024 * 1024;
}

int WsTunnel::Read(char* buf, size_t n, std::chrono::milliseconds timeout) {
  bool read_once = false;
  while (payload_.empty()) {
    if (closed_) return -1;
    WsFrame f;
    Result<size_t> used = ParseWsFrame(raw_, kMaxMessage, &f);
    if (!used.ok()) {
      closed_ = true;
      continue;
    }
    if (*used > 0) {
      raw_.erase(0, *used);
      if (f.opcode == kWsClose) {
        inner_.Write(EncodeWsFrame(kWsClose, f.payload.substr(0, 2)));
        closed_ = true;
      } else if (f.opcode == kWsPing) {
        inner_.Write(EncodeWsFrame(kWsPong, f.payload));
      } else if (f.opcode != kWsPong) {
        payload_ += f.payload;
      }
      continue;
    }
    if (read_once) return 0;
    char tmp[16384];
    int got = inner_.Read(tmp, sizeof(tmp), timeout);
    if (got <= 0) return got;
    raw_.append(tmp, static_cast<size_t>(got));
    read_once = true;
  }
  size_t k = std::min(n, payload_.size());
  std::memcpy(buf, payload_.data(), k);
  payload_.erase(0, k);
  return static_cast<int>(k);
}

bool WsTunnel::Write(std::string_view bytes) {
  return inner_.Write(EncodeWsFrame(kWsBinary, bytes));
}

}  // namespace kmock::server::stream
