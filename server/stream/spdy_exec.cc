#include "server/stream/spdy_exec.h"

#include <nlohmann/json.hpp>

namespace kmock::server::stream {

bool SpdyExecTransport::Take(SpdySession::Event& e) {
  using Event = SpdySession::Event;
  switch (e.kind) {
    case Event::kOpened: {
      std::string type = SpdyHeader(e.headers, "streamtype");
      uint32_t* slot = type == "error"    ? &error_
                       : type == "stdin"  ? &stdin_
                       : type == "stdout" ? &stdout_
                       : type == "stderr" ? &stderr_
                       : type == "resize" ? &resize_
                                          : nullptr;
      if (slot == nullptr)
        session_.Reset(e.stream, kSpdyRefusedStream);
      else
        *slot = e.stream;
      return false;
    }
    case Event::kData:
      if (e.stream == stdin_ && stdin_ != 0) {
        early_.push_back(std::move(e.data));
        return true;
      }
      return false;  // resizes
    case Event::kClosed:
    case Event::kReset:
      if (e.stream == stdin_ && stdin_ != 0) {
        stdin_closed_ = true;
        return true;
      }
      return false;
    case Event::kEnd:
      gone_ = true;
      return false;
    case Event::kNothing:
      return false;
  }
  return false;
}

std::unique_ptr<SpdyExecTransport> SpdyExecTransport::Open(
    SpdySession& session, const ExecStreams& streams, bool v4,
    const std::function<bool()>& stopping, std::chrono::milliseconds timeout) {
  std::unique_ptr<SpdyExecTransport> t(new SpdyExecTransport(session, v4));
  const auto step = std::chrono::milliseconds(100);
  auto waited = std::chrono::milliseconds(0);
  auto ready = [&] {
    return t->error_ != 0 && (!streams.in || t->stdin_ != 0) &&
           (!streams.out || t->stdout_ != 0) &&
           (!streams.err || streams.tty || t->stderr_ != 0) &&
           (!streams.tty || t->resize_ != 0);
  };
  while (!ready()) {
    if (t->gone_ || stopping() || waited >= timeout) return nullptr;
    SpdySession::Event e = session.Next(step);
    if (e.kind == SpdySession::Event::kNothing) waited += step;
    t->Take(e);
  }
  return t;
}

ExecTransport::Got SpdyExecTransport::Next(std::string* data,
                                           std::chrono::milliseconds wait) {
  while (true) {
    if (!early_.empty()) {
      *data = std::move(early_.front());
      early_.pop_front();
      return Got::kStdin;
    }
    if (stdin_closed_) {
      stdin_closed_ = false;
      stdin_ = 0;
      return Got::kStdinClosed;
    }
    if (gone_) return Got::kEnd;
    SpdySession::Event e = session_.Next(wait);
    if (e.kind == SpdySession::Event::kNothing) return Got::kNothing;
    Take(e);
  }
}

bool SpdyExecTransport::Send(int fd, std::string_view data) {
  uint32_t stream = fd == 2 ? stderr_ : stdout_;
  if (stream == 0 || data.empty()) return true;
  return session_.Send(stream, data);
}

void SpdyExecTransport::Finish(const ExecOutcome& outcome,
                               const std::vector<std::string>& command) {
  if (stdout_ != 0) session_.Send(stdout_, "", true);
  if (stderr_ != 0) session_.Send(stderr_, "", true);
  std::string status;
  if (v4_) {
    status = ExecStatusJson(outcome, command);
  } else if (!outcome.failure.empty() || outcome.exit_code != 0) {
    status = nlohmann::json::parse(ExecStatusJson(outcome, command))
                 .value("message", "");
  }
  session_.Send(error_, status, true);
  session_.GoAway();
  session_.Drain(std::chrono::milliseconds(1000));
}

}  // namespace kmock::server::stream
