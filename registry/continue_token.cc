#include "registry/continue_token.h"

#include <nlohmann/json.hpp>
#include <string>

#include "patch/go_format.h"

namespace kmock::registry {

namespace {
const char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int DecodeChar(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

// kube-apiserver wraps every decoding failure as "invalid continue token:
// continue key is not valid: <cause>".
Status Invalid(const std::string& why) {
  return Status(StatusCode::kBadRequest,
                "invalid continue token: continue key is not valid: " + why);
}

// The byte as Go's encoding/json quotes it in a syntax error: the byte is
// taken as the rune U+00XX and passed through strconv.Quote.
std::string GoQuoteByte(unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  if (c == '\'') return "'\\''";
  if (c == '"') return "'\"'";
  std::string q;
  switch (c) {
    case '\a':
      q = "\\a";
      break;
    case '\b':
      q = "\\b";
      break;
    case '\f':
      q = "\\f";
      break;
    case '\n':
      q = "\\n";
      break;
    case '\r':
      q = "\\r";
      break;
    case '\t':
      q = "\\t";
      break;
    case '\v':
      q = "\\v";
      break;
    case '\\':
      q = "\\\\";
      break;
    default:
      if (c < 0x20 || c == 0x7f) {
        q = std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
      } else if (c < 0x80) {
        q = std::string(1, char(c));
      } else if (c < 0xa1 || c == 0xad) {  // not printable in Unicode
        q = std::string("\\u00") + kHex[c >> 4] + kHex[c & 15];
      } else {  // printable Latin-1: its UTF-8 form
        q = std::string(1, char(0xc0 | (c >> 6))) + char(0x80 | (c & 0x3f));
      }
  }
  return "'" + q + "'";
}

// encoding/json's message for the token text that failed to parse, for the
// cases a garbage token meets: nothing at all, or a first byte that cannot
// start a JSON value.
std::string JsonSyntaxMessage(const std::string& raw) {
  size_t i = raw.find_first_not_of(" \t\r\n");
  if (i == std::string::npos) return "unexpected end of JSON input";
  unsigned char c = raw[i];
  bool can_start = c == '{' || c == '[' || c == '"' || c == '-' ||
                   (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n';
  if (!can_start) {
    return "invalid character " + GoQuoteByte(c) +
           " looking for beginning of value";
  }
  return "invalid JSON in token";
}

const char kBadStart[] =
    "incorrect encoded start resourceVersion (version meta.k8s.io/v1)";
}  // namespace

std::string Base64UrlEncode(const std::string& in) {
  std::string out;
  size_t i = 0;
  while (i + 2 < in.size()) {
    uint32_t n =
        (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
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

bool Base64UrlDecode(const std::string& in, std::string* out, size_t* bad_at) {
  out->clear();
  uint32_t acc = 0;
  int bits = 0;
  size_t chars = 0;  // significant characters seen (newlines are skipped)
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '\n' || c == '\r') continue;
    int v = DecodeChar(c);
    if (v < 0) {
      if (bad_at) *bad_at = i;
      return false;
    }
    ++chars;
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(char((acc >> bits) & 0xff));
    }
  }
  if (chars % 4 == 1) {  // a lone final character carries no whole byte
    if (bad_at) *bad_at = in.size() - 1;
    return false;
  }
  return true;
}

std::string EncodeContinue(const ContinueToken& token) {
  nlohmann::json j = {
      {"v", "meta.k8s.io/v1"}, {"rv", token.revision}, {"start", token.start}};
  return Base64UrlEncode(j.dump());
}

Result<ContinueToken> DecodeContinue(const std::string& text) {
  std::string raw;
  size_t bad_at = 0;
  if (!Base64UrlDecode(text, &raw, &bad_at)) {
    return Invalid("illegal base64 data at input byte " +
                   std::to_string(bad_at));
  }
  nlohmann::json j = nlohmann::json::parse(raw, nullptr, false);
  if (j.is_discarded()) return Invalid(JsonSyntaxMessage(raw));
  if (j.is_null()) j = nlohmann::json::object();  // a zero token
  if (!j.is_object()) {
    return Invalid("json: cannot unmarshal " + patch::GoJsonKind(j) +
                   " into Go value of type storage.continueToken");
  }
  auto version = j.find("v");
  if (version == j.end() || *version != "meta.k8s.io/v1")
    return Invalid(kBadStart);
  auto rv = j.find("rv");
  auto start = j.find("start");
  if (rv == j.end() || !rv->is_number_integer() || start == j.end() ||
      !start->is_string())
    return Invalid(kBadStart);
  ContinueToken t;
  t.revision = rv->get<int64_t>();
  t.start = start->get<std::string>();
  if (t.revision <= 0) return Invalid(kBadStart);
  if (t.start.find("..") != std::string::npos ||
      (!t.start.empty() && t.start[0] == '/'))
    return Invalid("key must not be absolute or contain '..'");
  return t;
}

}  // namespace kmock::registry
