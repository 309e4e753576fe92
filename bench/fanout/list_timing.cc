#include "fanout/list_timing.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "fanout/stream_decoder.h"

namespace kmock::bench {
namespace {

// Percent-encodes everything but unreserved characters (a continue token is
// base64, whose '+', '/' and '=' must not reach the query raw).
std::string QueryEscape(const std::string& s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// What an error report quotes of a failed response's body.
constexpr size_t kErrorPrefix = 300;

}  // namespace

ListResult RunList(const ListOptions& o) {
  ListResult r;
  auto cli = MakeApiClient(o.endpoint);
  const httplib::Headers accept = {{"Accept", "application/json"}};
  const char sep = o.path.find('?') == std::string::npos ? '?' : '&';
  for (int run = 0; run < std::max(1, o.runs); ++run) {
    int64_t pages = 0, items = 0, bytes = 0;
    std::string token;
    int64_t start = NowNs();
    do {
      std::string path = o.path;
      if (o.limit > 0) {
        path += sep + std::string("limit=") + std::to_string(o.limit);
        if (!token.empty()) path += "&continue=" + QueryEscape(token);
      }
      // A page is kept for its continue token; a whole list is counted as
      // it arrives, as a client that decodes while it reads would.
      std::string body;
      StreamingItemCounter counter;
      int64_t received = 0;
      auto res = cli->Get(path, accept, [&](const char* data, size_t size) {
        received += static_cast<int64_t>(size);
        if (o.limit > 0 || body.size() < kErrorPrefix) {
          body.append(data, size);
        }
        counter.Feed(std::string_view(data, size));
        return true;
      });
      if (!res || res->status != 200) {
        r.error = "GET " + path + ": " +
                  (res ? std::to_string(res->status) + " " +
                             body.substr(0, kErrorPrefix)
                       : to_string(res.error()));
        return r;
      }
      ++pages;
      bytes += received;
      items += counter.items();
      token = o.limit > 0 ? ListContinueToken(body) : "";
    } while (!token.empty());
    r.seconds.push_back((NowNs() - start) / 1e9);
    r.pages = pages;
    r.items = items;
    r.bytes = bytes;
  }
  return r;
}

std::string ListResultJson(const ListOptions& o, const ListResult& r) {
  std::vector<double> s = r.seconds;
  std::sort(s.begin(), s.end());
  double median = s.empty() ? 0 : s[s.size() / 2];
  std::string runs = "[";
  for (size_t i = 0; i < r.seconds.size(); ++i) {
    char b[32];
    snprintf(b, sizeof b, "%s%.4f", i ? "," : "", r.seconds[i]);
    runs += b;
  }
  runs += "]";
  char buf[512];
  snprintf(buf, sizeof buf,
           "{\"ok\":%s,\"limit\":%lld,\"median_seconds\":%.4f,"
           "\"min_seconds\":%.4f,\"pages\":%lld,\"items\":%lld,"
           "\"bytes\":%lld,\"runs\":",
           r.error.empty() ? "true" : "false", static_cast<long long>(o.limit),
           median, s.empty() ? 0 : s[0], static_cast<long long>(r.pages),
           static_cast<long long>(r.items), static_cast<long long>(r.bytes));
  return std::string(buf) + runs + ",\"path\":" + JsonString(o.path) +
         ",\"error\":" + JsonString(r.error) + "}";
}

}  // namespace kmock::bench
