#include "server/query_params.h"

namespace kmock::server {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::string> QueryUnescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      int hi = HexValue(s[i + 1]);
      int lo = HexValue(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string_view RawQueryOf(std::string_view target) {
  size_t q = target.find('?');
  if (q == std::string_view::npos) return {};
  std::string_view query = target.substr(q + 1);
  return query.substr(0, query.find('#'));
}

httplib::Params ParseQuery(std::string_view raw_query) {
  httplib::Params params;
  while (!raw_query.empty()) {
    size_t amp = raw_query.find('&');
    std::string_view pair = raw_query.substr(0, amp);
    raw_query = amp == std::string_view::npos ? std::string_view()
                                              : raw_query.substr(amp + 1);
    if (pair.empty() || pair.find(';') != std::string_view::npos) continue;
    size_t eq = pair.find('=');
    std::string_view raw_key = pair.substr(0, eq);
    std::string_view raw_value =
        eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    std::optional<std::string> key = QueryUnescape(raw_key);
    std::optional<std::string> value = QueryUnescape(raw_value);
    if (!key || !value) continue;
    params.emplace(std::move(*key), std::move(*value));
  }
  return params;
}

}  // namespace kmock::server
