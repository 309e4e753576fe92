#include "fanout/stream_decoder.h"

#include <algorithm>
#include <cstring>

namespace kmock::bench {
namespace {

constexpr std::string_view kResourceVersion = "\"resourceVersion\":\"";
constexpr std::string_view kType = "\"type\":\"";
constexpr std::string_view kContinue = "\"continue\":\"";

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The decimal digits of a quoted number starting at pos; -1 if none.
int64_t DigitsAt(std::string_view s, size_t pos) {
  int64_t v = 0;
  size_t i = pos;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    v = v * 10 + (s[i] - '0');
    ++i;
  }
  if (i == pos || i >= s.size() || s[i] != '"') return -1;
  return v;
}

// The string value that starts at pos and ends at the next unescaped quote.
std::string_view QuotedAt(std::string_view s, size_t pos) {
  size_t i = pos;
  while (i < s.size() && s[i] != '"') i += (s[i] == '\\') ? 2 : 1;
  if (i >= s.size()) return {};
  return s.substr(pos, i - pos);
}

// Occurrences of kResourceVersion that start before `before`. JSON is full
// of quotes, so a search led by the pattern's first byte stops every few
// bytes; its 'V' is rare (apiVersion, fieldsV1), and memchr skips to it.
int64_t CountResourceVersions(std::string_view s, size_t before) {
  constexpr size_t kV = 9;  // "resourceVersion": the V's offset
  static_assert(kResourceVersion[kV] == 'V');
  int64_t n = 0;
  const char* const begin = s.data();
  const char* const end = begin + s.size();
  for (const char* v = begin + std::min(kV, s.size()); v < end;) {
    v = static_cast<const char*>(memchr(v, 'V', end - v));
    if (v == nullptr) break;
    const size_t start = static_cast<size_t>(v - begin) - kV;
    if (start >= before) break;
    if (s.compare(start, kResourceVersion.size(), kResourceVersion) == 0) ++n;
    ++v;
  }
  return n;
}

}  // namespace

bool ChunkedLineReader::Fail(const std::string& why) {
  state_ = State::kBad;
  error_ = why;
  return false;
}

void ChunkedLineReader::TakeData(std::string_view data) {
  while (!data.empty()) {
    size_t nl = data.find('\n');
    if (nl == std::string_view::npos) {
      line_.append(data);
      return;
    }
    if (line_.empty()) {
      on_line_(data.substr(0, nl));
    } else {
      line_.append(data.substr(0, nl));
      on_line_(line_);
      line_.clear();
    }
    data.remove_prefix(nl + 1);
  }
}

bool ChunkedLineReader::Feed(std::string_view bytes) {
  size_t i = 0;
  while (i < bytes.size()) {
    switch (state_) {
      case State::kBad:
        return false;
      case State::kFinished:
        return true;  // trailers and anything after are ignored
      case State::kSize: {
        char c = bytes[i++];
        int d = HexDigit(c);
        if (d >= 0) {
          if (size_ > (UINT64_MAX >> 4)) return Fail("chunk size overflows");
          size_ = size_ * 16 + d;
          size_digits_ = true;
        } else if (c == ';') {
          state_ = State::kSizeExtension;
        } else if (c == '\r') {
          // The '\n' follows; handled on the next byte.
        } else if (c == '\n') {
          if (!size_digits_) return Fail("chunk header without a size");
          remaining_ = size_;
          state_ = size_ == 0 ? State::kFinished : State::kData;
          size_ = 0;
          size_digits_ = false;
        } else {
          return Fail(std::string("unexpected byte in chunk size: ") + c);
        }
        break;
      }
      case State::kSizeExtension:
        if (bytes[i++] == '\n') {
          if (!size_digits_) return Fail("chunk header without a size");
          remaining_ = size_;
          state_ = size_ == 0 ? State::kFinished : State::kData;
          size_ = 0;
          size_digits_ = false;
        }
        break;
      case State::kData: {
        size_t n = std::min<uint64_t>(remaining_, bytes.size() - i);
        TakeData(bytes.substr(i, n));
        i += n;
        remaining_ -= n;
        if (remaining_ == 0) {
          state_ = State::kDataEnd;
          end_seen_ = 0;
        }
        break;
      }
      case State::kDataEnd: {
        char c = bytes[i++];
        if (end_seen_ == 0 && c == '\r') {
          end_seen_ = 1;
        } else if (c == '\n') {
          state_ = State::kSize;
        } else {
          return Fail("chunk data not followed by CRLF");
        }
        break;
      }
    }
  }
  return state_ != State::kBad;
}

WatchEventInfo ParseWatchEvent(std::string_view line) {
  WatchEventInfo info;
  // kube-apiserver writes {"type":...,"object":...}; a sorted encoder
  // writes the type last.
  size_t t = line.starts_with("{\"type\":\"") ? 1 : line.rfind(kType);
  if (t != std::string_view::npos) {
    info.type = QuotedAt(line, t + kType.size());
  }
  info.resource_version = FirstResourceVersion(line);
  return info;
}

int64_t FirstResourceVersion(std::string_view json) {
  size_t p = json.find(kResourceVersion);
  if (p == std::string_view::npos) return -1;
  return DigitsAt(json, p + kResourceVersion.size());
}

// A List in kube-apiserver's order starts with kind, apiVersion and its own
// metadata; a sorted encoder puts the items first and the metadata last.
bool MetadataFirst(std::string_view list_json) {
  return list_json.starts_with("{\"kind\":");
}

int64_t ListResourceVersion(std::string_view list_json) {
  size_t p = MetadataFirst(list_json) ? list_json.find(kResourceVersion)
                                      : list_json.rfind(kResourceVersion);
  if (p == std::string_view::npos) return -1;
  return DigitsAt(list_json, p + kResourceVersion.size());
}

std::string ListContinueToken(std::string_view list_json) {
  size_t p = MetadataFirst(list_json) ? list_json.find(kContinue)
                                      : list_json.rfind(kContinue);
  if (p == std::string_view::npos) return "";
  return std::string(QuotedAt(list_json, p + kContinue.size()));
}

int64_t ListItemCount(std::string_view list_json) {
  int64_t n = CountResourceVersions(list_json, std::string_view::npos);
  return n > 0 ? n - 1 : 0;
}

void StreamingItemCounter::Feed(std::string_view bytes) {
  const size_t keep = kResourceVersion.size() - 1;
  if (!carry_.empty()) {
    // Fields that begin in the carried bytes and end in this piece.
    std::string joint = carry_;
    joint.append(bytes.substr(0, std::min(bytes.size(), keep)));
    seen_ += CountResourceVersions(joint, carry_.size());
  }
  seen_ += CountResourceVersions(bytes, std::string_view::npos);
  if (bytes.size() >= keep) {
    carry_.assign(bytes.substr(bytes.size() - keep));
  } else {
    carry_.append(bytes);
    if (carry_.size() > keep) carry_.erase(0, carry_.size() - keep);
  }
}

}  // namespace kmock::bench
