#include "server/stream/websocket.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

namespace kmock::server::stream {

std::string WsAcceptKey(std::string_view client_key) {
  std::string s(client_key);
  s += "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(s.data()), s.size(), digest);
  unsigned char out[64];
  int n = EVP_EncodeBlock(out, digest, SHA_DIGEST_LENGTH);
  return std::string(reinterpret_cast<char*>(out), static_cast<size_t>(n));
}

Result<size_t> ParseWsFrame(std::string_view buf, size_t max_payload,
                            WsFrame* out) {
  if (buf.size() < 2) return size_t{0};
  const auto* b = reinterpret_cast<const unsigned char*>(buf.data());
  if (b[0] & 0x70) return Status(StatusCode::kInvalid, "reserved bits set");
  uint8_t opcode = b[0] & 0x0F;
  bool control = opcode & 0x08;
  if (opcode != kWsContinuation && opcode != kWsText && opcode != kWsBinary &&
      opcode != kWsClose && opcode != kWsPing && opcode != kWsPong)
    return Status(StatusCode::kInvalid, "unknown opcode");
  bool fin = b[0] & 0x80;
  if (control && !fin)
    return Status(StatusCode::kInvalid, "fragmented control frame");
  bool masked = b[1] & 0x80;
  uint64_t len = b[1] & 0x7F;
  size_t pos = 2;
  if (len == 126) {
    if (buf.size() < 4) return size_t{0};
    len = (uint64_t{b[2]} << 8) | b[3];
    pos = 4;
  } else if (len == 127) {
    if (buf.size() < 10) return size_t{0};
    len = 0;
    for (int i = 0; i < 8; ++i) len = (len << 8) | b[2 + i];
    pos = 10;
  }
  if (control && len > 125)
    return Status(StatusCode::kInvalid, "control frame too long");
  if (len > max_payload) return Status(StatusCode::kInvalid, "frame too large");
  unsigned char mask[4] = {0, 0, 0, 0};
  if (masked) {
    if (buf.size() < pos + 4) return size_t{0};
    for (int i = 0; i < 4; ++i) mask[i] = b[pos + i];
    pos += 4;
  }
  if (buf.size() - pos < len) return size_t{0};
  out->fin = fin;
  out->opcode = opcode;
  out->payload.assign(buf.data() + pos, static_cast<size_t>(len));
  if (masked) {
    for (size_t i = 0; i < out->payload.size(); ++i)
      out->payload[i] = static_cast<char>(out->payload[i] ^ mask[i % 4]);
  }
  return pos + static_cast<size_t>(len);
}

std::string EncodeWsFrame(uint8_t opcode, std::string_view payload) {
  std::string f;
  f.push_back(static_cast<char>(0x80 | (opcode & 0x0F)));
  size_t n = payload.size();
  if (n < 126) {
    f.push_back(static_cast<char>(n));
  } else if (n <= 0xFFFF) {
    f.push_back(static_cast<char>(126));
    f.push_back(static_cast<char>((n >> 8) & 0xFF));
    f.push_back(static_cast<char>(n & 0xFF));
  } else {
    f.push_back(static_cast<char>(127));
    for (int i = 7; i >= 0; --i)
      f.push_back(
          static_cast<char>((static_cast<uint64_t>(n) >> (8 * i)) & 0xFF));
  }
  f.append(payload);
  return f;
}

void CloseWebSocket(UpgradedConn& conn) {
  std::string normal = {static_cast<char>(0x03), static_cast<char>(0xE8)};
  conn.Write(EncodeWsFrame(kWsClose, normal));
  char tmp[4096];
  for (int i = 0; i < 10; ++i)
    if (conn.Read(tmp, sizeof(tmp), std::chrono::milliseconds(100)) < 0) break;
}

}  // namespace kmock::server::stream
