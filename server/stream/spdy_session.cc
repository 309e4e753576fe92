#include "server/stream/spdy_session.h"

namespace kmock::server::stream {
namespace {
constexpr size_t kChunk = 32 * 1024;

SpdySession::Event Make(SpdySession::Event::Kind kind, uint32_t stream = 0,
                        SpdyHeaders headers = {}, std::string data = {}) {
  SpdySession::Event e;
  e.kind = kind;
  e.stream = stream;
  e.headers = std::move(headers);
  e.data = std::move(data);
  return e;
}

}  // namespace

SpdySession::Event SpdySession::Next(std::chrono::milliseconds wait) {
  bool read_once = false;
  while (true) {
    if (!pending_.empty()) {
      Event e = std::move(pending_.front());
      pending_.pop_front();
      return e;
    }
    if (ended_) return Make(Event::kEnd);
    SpdyFrame f;
    Result<size_t> used = codec_.Parse(buf_, &f);
    if (!used.ok()) {
      conn_.Write(codec_.GoAway(last_stream_, kSpdyProtocolError));
      ended_ = true;
      continue;
    }
    if (*used > 0) {
      buf_.erase(0, *used);
      switch (f.type) {
        case kSpdySynStream:
          last_stream_ = f.stream_id;
          if (!conn_.Write(codec_.SynReply(f.stream_id, {}, false))) {
            ended_ = true;
            continue;
          }
          pending_.push_back(
              Make(Event::kOpened, f.stream_id, std::move(f.headers)));
          if (f.fin()) pending_.push_back(Make(Event::kClosed, f.stream_id));
          break;
        case kSpdyData:
          if (!f.data.empty())
            pending_.push_back(
                Make(Event::kData, f.stream_id, {}, std::move(f.data)));
          if (f.fin()) pending_.push_back(Make(Event::kClosed, f.stream_id));
          break;
        case kSpdyHeaders:
          if (f.fin()) pending_.push_back(Make(Event::kClosed, f.stream_id));
          break;
        case kSpdyRstStream:
          pending_.push_back(Make(Event::kReset, f.stream_id));
          break;
        case kSpdyPing:
          conn_.Write(codec_.Ping(f.value));
          break;
        case kSpdyGoAway:
          ended_ = true;
          break;
        default:
          break;
      }
      continue;
    }
    if (read_once) return Make(Event::kNothing);
    char tmp[16384];
    int n = conn_.Read(tmp, sizeof(tmp), wait);
    if (n < 0) {
      ended_ = true;
      continue;
    }
    if (n == 0) return Make(Event::kNothing);
    buf_.append(tmp, static_cast<size_t>(n));
    read_once = true;
  }
}

bool SpdySession::Send(uint32_t stream, std::string_view data, bool fin) {
  if (data.empty()) return !fin || conn_.Write(codec_.Data(stream, "", true));
  for (size_t i = 0; i < data.size(); i += kChunk) {
    bool last = i + kChunk >= data.size();
    if (!conn_.Write(codec_.Data(stream, data.substr(i, kChunk), fin && last)))
      return false;
  }
  return true;
}

bool SpdySession::Reset(uint32_t stream, uint32_t status) {
  return conn_.Write(codec_.RstStream(stream, status));
}

void SpdySession::GoAway() { conn_.Write(codec_.GoAway(last_stream_, 0)); }

void SpdySession::Drain(std::chrono::milliseconds max) {
  auto step = std::chrono::milliseconds(100);
  for (auto waited = std::chrono::milliseconds(0); waited < max;
       waited += step) {
    Event e = Next(step);
    if (e.kind == Event::kEnd) return;
  }
}

}  // namespace kmock::server::stream
