#include "kubeconfig/base64.h"

#include <cstdint>

namespace kmock::kubeconfig {

namespace {
constexpr char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}
}  // namespace

std::string Base64Encode(const std::string& data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    uint32_t v = (uint8_t(data[i]) << 16) | (uint8_t(data[i + 1]) << 8) |
                 uint8_t(data[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  size_t rest = data.size() - i;
  if (rest > 0) {
    uint32_t v = uint8_t(data[i]) << 16;
    if (rest == 2) v |= uint8_t(data[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> Base64Decode(const std::string& text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    bool last = i + 4 == text.size();
    int a = Value(text[i]), b = Value(text[i + 1]);
    int c = text[i + 2] == '=' && last ? 0 : Value(text[i + 2]);
    int d = text[i + 3] == '=' && last ? 0 : Value(text[i + 3]);
    if (a < 0 || b < 0 || c < 0 || d < 0) return std::nullopt;
    if (text[i + 2] == '=' && text[i + 3] != '=') return std::nullopt;
    uint32_t v = (a << 18) | (b << 12) | (c << 6) | d;
    out += char((v >> 16) & 0xff);
    if (text[i + 2] != '=') out += char((v >> 8) & 0xff);
    if (text[i + 3] != '=') out += char(v & 0xff);
  }
  return out;
}

}  // namespace kmock::kubeconfig
