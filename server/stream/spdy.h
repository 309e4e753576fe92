// SPDY/3.1 framing, as Kubernetes' streaming protocols use it: exec and
// attach of kubectl 1.27-1.29, port-forward of every kubectl (1.31 and
// later carry it inside WebSocket messages). A connection carries frames:
// data frames of a stream, and control frames that open a stream
// (SYN_STREAM, with headers), answer it (SYN_REPLY), reset it
// (RST_STREAM), and keep the session (SETTINGS, PING, GOAWAY, HEADERS,
// WINDOW_UPDATE). Header blocks are zlib-compressed with the protocol's
// dictionary, one compression context per direction for the whole
// connection, so one codec serves one connection.
//
// Thread safety: a SpdyCodec belongs to one connection and is used from
// one thread at a time.
#ifndef KMOCK_SERVER_STREAM_SPDY_H_
#define KMOCK_SERVER_STREAM_SPDY_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace kmock::server::stream {

enum SpdyType : uint16_t {
  kSpdyData = 0,  // not a control frame type: a data frame
  kSpdySynStream = 1,
  kSpdySynReply = 2,
  kSpdyRstStream = 3,
  kSpdySettings = 4,
  kSpdyPing = 6,
  kSpdyGoAway = 7,
  kSpdyHeaders = 8,
  kSpdyWindowUpdate = 9,
};

constexpr uint8_t kSpdyFlagFin = 0x01;

// RST_STREAM status codes.
constexpr uint32_t kSpdyProtocolError = 1;
constexpr uint32_t kSpdyInvalidStream = 2;
constexpr uint32_t kSpdyRefusedStream = 3;
constexpr uint32_t kSpdyCancel = 5;

using SpdyHeaders = std::vector<std::pair<std::string, std::string>>;

struct SpdyFrame {
  uint16_t type = kSpdyData;
  uint8_t flags = 0;
  uint32_t stream_id = 0;  // data, SYN_*, RST_STREAM, HEADERS, WINDOW_UPDATE
  // RST_STREAM and GOAWAY status, PING id, WINDOW_UPDATE delta.
  uint32_t value = 0;
  SpdyHeaders headers;  // SYN_STREAM, SYN_REPLY, HEADERS (names lower case)
  std::string data;     // data frames
  bool fin() const { return (flags & kSpdyFlagFin) != 0; }
};

// The value of a header, or empty.
std::string SpdyHeader(const SpdyHeaders& headers, std::string_view name);

class SpdyCodec {
 public:
  // Frames larger than this, and header blocks that inflate to more than
  // kMaxHeaderBlock, are protocol errors.
  static constexpr size_t kMaxFrame = 16 * 1024 * 1024;
  static constexpr size_t kMaxHeaderBlock = 256 * 1024;

  SpdyCodec();
  ~SpdyCodec();
  SpdyCodec(const SpdyCodec&) = delete;
  SpdyCodec& operator=(const SpdyCodec&) = delete;

  // Parses the frame at the start of buf. Returns the bytes it took, 0
  // when buf does not hold a whole frame yet, or kInvalid (a protocol
  // error: the session cannot go on, since the header context is lost).
  Result<size_t> Parse(std::string_view buf, SpdyFrame* out);

  std::string SynStream(uint32_t stream_id, const SpdyHeaders& headers,
                        bool fin);
  std::string SynReply(uint32_t stream_id, const SpdyHeaders& headers,
                       bool fin);
  std::string Data(uint32_t stream_id, std::string_view data, bool fin);
  std::string RstStream(uint32_t stream_id, uint32_t status);
  std::string Ping(uint32_t id);
  std::string GoAway(uint32_t last_good_stream, uint32_t status);

 private:
  struct Zlib;
  std::string Control(uint16_t type, uint8_t flags, std::string_view payload);
  std::string HeaderBlock(const SpdyHeaders& headers);
  Result<SpdyHeaders> ReadHeaderBlock(std::string_view compressed);

  std::unique_ptr<Zlib> z_;
};

}  // namespace kmock::server::stream

#endif  // KMOCK_SERVER_STREAM_SPDY_H_
