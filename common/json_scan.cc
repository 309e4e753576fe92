#include "common/json_scan.h"

#include <cstddef>
#include <cstring>
#include <functional>

namespace kmock {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t SkipSpace(std::string_view t, size_t i) {
  while (i < t.size() && IsSpace(t[i])) ++i;
  return i;
}

// t[i] is '"': returns the index just past the closing quote, or npos.
// Jumps from quote to quote (memchr), then counts the backslashes before
// one: an odd count escapes it. Most of a Kubernetes object's bytes are in
// strings, so this is where a scan spends its time.
size_t SkipString(std::string_view t, size_t i) {
  const char* const begin = t.data();
  const char* const end = begin + t.size();
  const char* p = begin + i + 1;
  while (p < end) {
    const void* q = std::memchr(p, '"', static_cast<size_t>(end - p));
    if (q == nullptr) return std::string_view::npos;
    const char* quote = static_cast<const char*>(q);
    size_t backslashes = 0;
    for (const char* b = quote - 1; b > begin + i && *b == '\\'; --b) {
      ++backslashes;
    }
    if (backslashes % 2 == 0) return static_cast<size_t>(quote - begin) + 1;
    p = quote + 1;
  }
  return std::string_view::npos;
}

// t[i] starts a value: returns the index just past it, or npos.
size_t SkipValue(std::string_view t, size_t i) {
  if (i >= t.size()) return std::string_view::npos;
  char c = t[i];
  if (c == '"') return SkipString(t, i);
  if (c == '{' || c == '[') {
    int depth = 0;
    while (i < t.size()) {
      char d = t[i];
      if (d == '"') {
        i = SkipString(t, i);
        if (i == std::string_view::npos) return i;
        continue;
      }
      if (d == '{' || d == '[') {
        ++depth;
      } else if (d == '}' || d == ']') {
        if (--depth == 0) return i + 1;
      }
      ++i;
    }
    return std::string_view::npos;
  }
  // A number or a literal: up to the next delimiter.
  size_t start = i;
  while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']' &&
         !IsSpace(t[i])) {
    ++i;
  }
  return i == start ? std::string_view::npos : i;
}

}  // namespace

bool ForEachTopLevelMember(
    std::string_view text,
    const std::function<bool(std::string_view, std::string_view)>& fn) {
  size_t i = SkipSpace(text, 0);
  if (i >= text.size() || text[i] != '{') return false;
  i = SkipSpace(text, i + 1);
  if (i < text.size() && text[i] == '}') return true;
  while (i < text.size() && text[i] == '"') {
    size_t key_end = SkipString(text, i);
    if (key_end == std::string_view::npos) return false;
    std::string_view name = text.substr(i + 1, key_end - i - 2);
    i = SkipSpace(text, key_end);
    if (i >= text.size() || text[i] != ':') return false;
    i = SkipSpace(text, i + 1);
    size_t value_end = SkipValue(text, i);
    if (value_end == std::string_view::npos) return false;
    if (!fn(name, text.substr(i, value_end - i))) return true;
    i = SkipSpace(text, value_end);
    if (i < text.size() && text[i] == '}') return true;
    if (i >= text.size() || text[i] != ',') return false;
    i = SkipSpace(text, i + 1);
  }
  return false;
}

std::optional<std::string_view> TopLevelMember(std::string_view text,
                                               std::string_view key) {
  std::optional<std::string_view> found;
  ForEachTopLevelMember(text,
                        [&](std::string_view name, std::string_view value) {
                          if (name != key) return true;
                          found = value;
                          return false;
                        });
  return found;
}

void AppendMemberText(std::string_view key, std::string_view value,
                      std::string* out) {
  if (out->empty() || out->back() != '{') out->push_back(',');
  out->push_back('"');
  out->append(key);
  out->append("\":");
  out->append(value);
}

std::optional<std::string> ObjectWithoutMember(std::string_view text,
                                               std::string_view drop) {
  std::string out;
  out.reserve(text.size());
  out.push_back('{');
  bool whole = ForEachTopLevelMember(
      text, [&](std::string_view key, std::string_view value) {
        if (key != drop) AppendMemberText(key, value, &out);
        return true;
      });
  if (!whole) return std::nullopt;
  out.push_back('}');
  return out;
}

}  // namespace kmock
