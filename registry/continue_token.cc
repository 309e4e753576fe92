#include "registry/continue_token.h"

#include <nlohmann/json.hpp>

namespace kmock::registry {

namespace {
const char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int DecodeChar(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-' || c == '+') return 62;
  if (c == '_' || c == '/') return 63;
  return -1;
}

Status Invalid(const std::string& why) {
  return Status(StatusCode::kBadRequest, "invalid continue token: " + why);
}
}  // namespace

std::string Base64UrlEncode(const std::string& in) {
  std::string out;
  size_t i = 0;
  while (i + 2 < in.size()) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
    i += 3;
  }
  if (i + 1 == in.size()) {
    uint32_t n = uint8_t(in[i]) << 16;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
  } else if (i + 2 == in.size()) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
  }
  return out;
}

bool Base64UrlDecode(const std::string& in, std::string* out) {
  out->clear();
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    int v = DecodeChar(c);
    if (v < 0) return false;
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(char((acc >> bits) & 0xff));
    }
  }
  return true;
}

std::string EncodeContinue(const ContinueToken& token) {
  nlohmann::json j = {{"v", "meta.k8s.io/v1"}, {"rv", token.revision}, {"start", token.start}};
  return Base64UrlEncode(j.dump());
}

Result<ContinueToken> DecodeContinue(const std::string& text) {
  std::string raw;
  if (!Base64UrlDecode(text, &raw)) return Invalid("illegal base64 data");
  nlohmann::json j = nlohmann::json::parse(raw, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Invalid("invalid character in token");
  if (j.value("v", "") != "meta.k8s.io/v1")
    return Invalid("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  auto rv = j.find("rv");
  auto start = j.find("start");
  if (rv == j.end() || !rv->is_number_integer() || start == j.end() || !start->is_string())
    return Invalid("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  ContinueToken t;
  t.revision = rv->get<int64_t>();
  t.start = start->get<std::string>();
  if (t.revision <= 0) return Invalid("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  if (t.start.find("..") != std::string::npos || (!t.start.empty() && t.start[0] == '/'))
    return Invalid("continue key is not valid: key must not be absolute or contain '..'");
  return t;
}

}  // namespace kmock::registry
