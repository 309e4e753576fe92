#include "common/go_base64.h"

#include <algorithm>

namespace kmock {

namespace {

int Value(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool IsNewline(char c) { return c == '\n' || c == '\r'; }

}  // namespace

// Follows Go's decodeQuantum: four symbols at a time, newlines skipped
// anywhere, '=' only as the last one or two symbols of the last quantum.
std::optional<std::string> GoBase64Decode(std::string_view src,
                                          size_t* error_offset) {
  std::string out;
  out.reserve(src.size() / 4 * 3);
  size_t si = 0;
  while (si < src.size()) {
    int quantum[4];
    int j = 0;
    bool padded = false;
    while (j < 4) {
      if (si == src.size()) {
        if (j == 0) return out;
        // A short last quantum: Go wants padding.
        *error_offset = si - j;
        return std::nullopt;
      }
      char in = src[si++];
      int v = Value(static_cast<unsigned char>(in));
      if (v >= 0) {
        quantum[j++] = v;
        continue;
      }
      if (IsNewline(in)) continue;
      if (in != '=') {
        *error_offset = si - 1;
        return std::nullopt;
      }
      // Padding.
      if (j == 0 || j == 1) {
        *error_offset = si - 1;
        return std::nullopt;
      }
      if (j == 2) {
        // "==" is expected: skip newlines to the second '='.
        while (si < src.size() && IsNewline(src[si])) ++si;
        if (si == src.size()) {
          *error_offset = src.size();
          return std::nullopt;
        }
        if (src[si] != '=') {
          *error_offset = si - 1;
          return std::nullopt;
        }
        ++si;
      }
      // Only newlines may follow the padding.
      while (si < src.size() && IsNewline(src[si])) ++si;
      if (si < src.size()) {
        *error_offset = si;
        return std::nullopt;
      }
      padded = true;
      break;
    }
    unsigned int bits = 0;
    for (int k = 0; k < j; ++k) bits |= unsigned(quantum[k]) << (18 - 6 * k);
    out.push_back(char((bits >> 16) & 0xff));
    if (j >= 3) out.push_back(char((bits >> 8) & 0xff));
    if (j == 4) out.push_back(char(bits & 0xff));
    if (padded) return out;
  }
  return out;
}

std::string GoBase64Encode(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    size_t n = std::min<size_t>(3, bytes.size() - i);
    unsigned int bits = 0;
    for (size_t k = 0; k < n; ++k) {
      bits |= unsigned(static_cast<unsigned char>(bytes[i + k]))
              << (16 - 8 * k);
    }
    for (size_t k = 0; k < 4; ++k) {
      out.push_back(k <= n ? kAlphabet[(bits >> (18 - 6 * k)) & 63] : '=');
    }
  }
  return out;
}

std::string GoBase64ErrorText(size_t error_offset) {
  return "illegal base64 data at input byte " + std::to_string(error_offset);
}

}  // namespace kmock
