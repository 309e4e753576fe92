// WebSocket framing (RFC 6455) for the container streams: the opening
// handshake's accept key, and frames in both directions. Client frames are
// masked, server frames are not; a frame larger than the limit, a bad
// opcode or reserved bits are errors (the stream is then closed).
//
// Thread safety: pure functions.
#ifndef KMOCK_SERVER_STREAM_WEBSOCKET_H_
#define KMOCK_SERVER_STREAM_WEBSOCKET_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "server/stream/upgraded_conn.h"

namespace kmock::server::stream {

enum WsOpcode : uint8_t {
  kWsContinuation = 0x0,
  kWsText = 0x1,
  kWsBinary = 0x2,
  kWsClose = 0x8,
  kWsPing = 0x9,
  kWsPong = 0xA,
};

struct WsFrame {
  bool fin = true;
  uint8_t opcode = kWsBinary;
  std::string payload;  // unmasked
};

// Sec-WebSocket-Accept for a client's Sec-WebSocket-Key.
std::string WsAcceptKey(std::string_view client_key);

// Parses the frame at the start of `buf`. Returns the bytes it took, 0 when
// `buf` does not hold a whole frame yet, or kInvalid.
Result<size_t> ParseWsFrame(std::string_view buf, size_t max_payload,
                            WsFrame* out);

// Sends a normal close (1000) and reads what the client still sends, for
// up to a second, so that it sees the close before the connection goes.
void CloseWebSocket(UpgradedConn& conn);

// A server frame (unmasked, final).
std::string EncodeWsFrame(uint8_t opcode, std::string_view payload);

}  // namespace kmock::server::stream

#endif  // KMOCK_SERVER_STREAM_WEBSOCKET_H_
