#include "server/stream/spdy.h"

#include <zlib.h>

#include <cstring>

namespace kmock::server::stream {
namespace {

constexpr uint16_t kVersion = 3;

// The dictionary SPDY/3 primes both header compressors with: header
// names and common values, each with its 32-bit length, then a run of
// status codes, reason phrases, dates and media types.
const std::string& Dictionary() {
  static const std::string dict = [] {
    static const char* const kWords[] = {
        "options",
        "head",
        "post",
        "put",
        "delete",
        "trace",
        "accept",
        "accept-charset",
        "accept-encoding",
        "accept-language",
        "accept-ranges",
        "age",
        "allow",
        "authorization",
        "cache-control",
        "connection",
        "content-base",
        "content-encoding",
        "content-language",
        "content-length",
        "content-location",
        "content-md5",
        "content-range",
        "content-type",
        "date",
        "etag",
        "expect",
        "expires",
        "from",
        "host",
        "if-match",
        "if-modified-since",
        "if-none-match",
        "if-range",
        "if-unmodified-since",
        "last-modified",
        "location",
        "max-forwards",
        "pragma",
        "proxy-authenticate",
        "proxy-authorization",
        "range",
        "referer",
        "retry-after",
        "server",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "user-agent",
        "vary",
        "via",
        "warning",
        "www-authenticate",
        "method",
        "get",
        "status",
        "200 OK",
        "version",
        "HTTP/1.1",
        "url",
        "public",
        "set-cookie",
        "keep-alive",
        "origin",
    };
    std::string d;
    for (const char* w : kWords) {
      uint32_t n = static_cast<uint32_t>(std::strlen(w));
      d += static_cast<char>(n >> 24);
      d += static_cast<char>(n >> 16);
      d += static_cast<char>(n >> 8);
      d += static_cast<char>(n);
      d += w;
    }
    d += "100101201202205206300302303304305306307402405406407408409410411412"
         "413414415416417502504505"
         "203 Non-Authoritative Information204 No Content301 Moved "
         "Permanently400 Bad Request401 Unauthorized403 Forbidden404 Not "
         "Found500 Internal Server Error501 Not Implemented503 Service "
         "Unavailable"
         "Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, "
         "Wed, Thu, Fri, Sat, Sun, GMT"
         "chunked,text/html,image/png,image/jpg,image/gif,application/xml,"
         "application/xhtml+xml,text/plain,text/javascript,publicprivatemax-"
         "age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.";
    return d;
  }();
  return dict;
}

uint32_t Get32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) |
         (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

void Put32(std::string* s, uint32_t v) {
  s->push_back(static_cast<char>(v >> 24));
  s->push_back(static_cast<char>(v >> 16));
  s->push_back(static_cast<char>(v >> 8));
  s->push_back(static_cast<char>(v));
}

Status Invalid(const char* why) { return Status(StatusCode::kInvalid, why); }

}  // namespace

struct SpdyCodec::Zlib {
  z_stream in{};
  z_stream out{};
  bool in_ok = false, out_ok = false;
  Zlib() {
    in_ok = inflateInit(&in) == Z_OK;
    out_ok = deflateInit(&out, Z_DEFAULT_COMPRESSION) == Z_OK &&
             deflateSetDictionary(
                 &out, reinterpret_cast<const Bytef*>(Dictionary().data()),
                 static_cast<uInt>(Dictionary().size())) == Z_OK;
  }
  ~Zlib() {
    inflateEnd(&in);
    deflateEnd(&out);
  }
};

std::string SpdyHeader(const SpdyHeaders& headers, std::string_view name) {
  for (const auto& [k, v] : headers)
    if (k == name) return v;
  return "";
}

SpdyCodec::SpdyCodec() : z_(std::make_unique<Zlib>()) {}
SpdyCodec::~SpdyCodec() = default;

Result<SpdyHeaders> SpdyCodec::ReadHeaderBlock(std::string_view compressed) {
  if (!z_->in_ok) return Invalid("no inflater");
  z_stream& z = z_->in;
  std::string raw;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  z.avail_in = static_cast<uInt>(compressed.size());
  char chunk[4096];
  // Inflates until the block is consumed and inflate has nothing more to
  // give (a sync flush ends each block, so no output stays behind).
  while (true) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof(chunk);
    int r = inflate(&z, Z_SYNC_FLUSH);
    if (r == Z_NEED_DICT) {
      if (inflateSetDictionary(
              &z, reinterpret_cast<const Bytef*>(Dictionary().data()),
              static_cast<uInt>(Dictionary().size())) != Z_OK)
        return Invalid("header block compressed with another dictionary");
      continue;
    }
    if (r != Z_OK && r != Z_BUF_ERROR) return Invalid("bad header block");
    size_t got = sizeof(chunk) - z.avail_out;
    raw.append(chunk, got);
    if (raw.size() > kMaxHeaderBlock) return Invalid("header block too large");
    if (z.avail_in == 0 && z.avail_out != 0) break;
    if (r == Z_BUF_ERROR && got == 0) break;
  }
  const auto* p = reinterpret_cast<const unsigned char*>(raw.data());
  size_t n = raw.size(), at = 0;
  auto take = [&](std::string* s) -> bool {
    if (n - at < 4) return false;
    uint32_t len = Get32(p + at);
    at += 4;
    if (len > n - at) return false;
    s->assign(raw, at, len);
    at += len;
    return true;
  };
  if (n < 4) return Invalid("short header block");
  uint32_t pairs = Get32(p);
  at = 4;
  if (pairs > n / 8) return Invalid("bad header count");
  SpdyHeaders headers;
  for (uint32_t i = 0; i < pairs; ++i) {
    std::string k, v;
    if (!take(&k) || !take(&v)) return Invalid("truncated header block");
    if (k.empty()) return Invalid("empty header name");
    for (char& c : k)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    headers.emplace_back(std::move(k), std::move(v));
  }
  return headers;
}

std::string SpdyCodec::HeaderBlock(const SpdyHeaders& headers) {
  std::string raw;
  Put32(&raw, static_cast<uint32_t>(headers.size()));
  for (const auto& [k, v] : headers) {
    Put32(&raw, static_cast<uint32_t>(k.size()));
    raw += k;
    Put32(&raw, static_cast<uint32_t>(v.size()));
    raw += v;
  }
  std::string out;
  if (!z_->out_ok) return out;
  z_stream& z = z_->out;
  z.next_in = reinterpret_cast<Bytef*>(raw.data());
  z.avail_in = static_cast<uInt>(raw.size());
  char chunk[4096];
  do {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof(chunk);
    deflate(&z, Z_SYNC_FLUSH);
    out.append(chunk, sizeof(chunk) - z.avail_out);
  } while (z.avail_out == 0);
  return out;
}

std::string SpdyCodec::Control(uint16_t type, uint8_t flags,
                               std::string_view payload) {
  std::string f;
  f.reserve(8 + payload.size());
  f.push_back(static_cast<char>(0x80 | (kVersion >> 8)));
  f.push_back(static_cast<char>(kVersion & 0xFF));
  f.push_back(static_cast<char>(type >> 8));
  f.push_back(static_cast<char>(type & 0xFF));
  Put32(&f, (uint32_t{flags} << 24) | static_cast<uint32_t>(payload.size()));
  f.append(payload);
  return f;
}

std::string SpdyCodec::SynStream(uint32_t stream_id, const SpdyHeaders& headers,
                                 bool fin) {
  std::string p;
  Put32(&p, stream_id & 0x7FFFFFFF);
  Put32(&p, 0);    // associated stream
  p.push_back(0);  // priority
  p.push_back(0);  // slot
  p += HeaderBlock(headers);
  return Control(kSpdySynStream, fin ? kSpdyFlagFin : 0, p);
}

std::string SpdyCodec::SynReply(uint32_t stream_id, const SpdyHeaders& headers,
                                bool fin) {
  std::string p;
  Put32(&p, stream_id & 0x7FFFFFFF);
  p += HeaderBlock(headers);
  return Control(kSpdySynReply, fin ? kSpdyFlagFin : 0, p);
}

std::string SpdyCodec::Data(uint32_t stream_id, std::string_view data,
                            bool fin) {
  std::string f;
  f.reserve(8 + data.size());
  Put32(&f, stream_id & 0x7FFFFFFF);
  Put32(&f, (uint32_t{fin ? kSpdyFlagFin : uint8_t{0}} << 24) |
                static_cast<uint32_t>(data.size()));
  f.append(data);
  return f;
}

std::string SpdyCodec::RstStream(uint32_t stream_id, uint32_t status) {
  std::string p;
  Put32(&p, stream_id & 0x7FFFFFFF);
  Put32(&p, status);
  return Control(kSpdyRstStream, 0, p);
}

std::string SpdyCodec::Ping(uint32_t id) {
  std::string p;
  Put32(&p, id);
  return Control(kSpdyPing, 0, p);
}

std::string SpdyCodec::GoAway(uint32_t last_good_stream, uint32_t status) {
  std::string p;
  Put32(&p, last_good_stream & 0x7FFFFFFF);
  Put32(&p, status);
  return Control(kSpdyGoAway, 0, p);
}

Result<size_t> SpdyCodec::Parse(std::string_view buf, SpdyFrame* out) {
  if (buf.size() < 8) return size_t{0};
  const auto* b = reinterpret_cast<const unsigned char*>(buf.data());
  uint32_t length = Get32(b + 4) & 0x00FFFFFF;
  if (length > kMaxFrame) return Invalid("frame too large");
  if (buf.size() < 8 + size_t{length}) return size_t{0};
  *out = SpdyFrame{};
  out->flags = b[4];
  const unsigned char* p = b + 8;
  const size_t used = 8 + size_t{length};
  if ((b[0] & 0x80) == 0) {
    out->type = kSpdyData;
    out->stream_id = Get32(b) & 0x7FFFFFFF;
    out->data.assign(buf.data() + 8, length);
    return used;
  }
  uint16_t version = static_cast<uint16_t>(((b[0] & 0x7F) << 8) | b[1]);
  if (version != kVersion) return Invalid("unsupported SPDY version");
  out->type = static_cast<uint16_t>((b[2] << 8) | b[3]);
  auto need = [&](uint32_t n) { return length >= n; };
  switch (out->type) {
    case kSpdySynStream: {
      if (!need(10)) return Invalid("short SYN_STREAM");
      out->stream_id = Get32(p) & 0x7FFFFFFF;
      KMOCK_ASSIGN_OR_RETURN(out->headers, ReadHeaderBlock(std::string_view(
                                               buf.data() + 18, length - 10)));
      break;
    }
    case kSpdySynReply:
    case kSpdyHeaders: {
      if (!need(4)) return Invalid("short SYN_REPLY");
      out->stream_id = Get32(p) & 0x7FFFFFFF;
      KMOCK_ASSIGN_OR_RETURN(out->headers, ReadHeaderBlock(std::string_view(
                                               buf.data() + 12, length - 4)));
      break;
    }
    case kSpdyRstStream:
    case kSpdyWindowUpdate:
      if (!need(8)) return Invalid("short frame");
      out->stream_id = Get32(p) & 0x7FFFFFFF;
      out->value = Get32(p + 4) &
                   (out->type == kSpdyWindowUpdate ? 0x7FFFFFFFu : 0xFFFFFFFFu);
      break;
    case kSpdyGoAway:
      if (!need(8)) return Invalid("short GOAWAY");
      out->stream_id = Get32(p) & 0x7FFFFFFF;
      out->value = Get32(p + 4);
      break;
    case kSpdyPing:
      if (!need(4)) return Invalid("short PING");
      out->value = Get32(p);
      break;
    default:
      break;  // SETTINGS and unknown types: nothing a session needs
  }
  return used;
}

}  // namespace kmock::server::stream
