// `kubectl exec` over SPDY/3.1 (kubectl 1.27-1.29, and clients that still
// use SPDY): the client opens one stream per channel, named by its
// `streamtype` header (error, stdin, stdout, stderr, resize); standard
// input ends with the stdin stream's FIN. The error stream carries the
// final metav1.Status in v4.channel.k8s.io, and only a failure's message
// in the older protocols.
//
// Thread safety: one transport per session, on one thread.
#ifndef KMOCK_SERVER_STREAM_SPDY_EXEC_H_
#define KMOCK_SERVER_STREAM_SPDY_EXEC_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "server/stream/exec_session.h"
#include "server/stream/spdy_session.h"

namespace kmock::server::stream {

class SpdyExecTransport : public ExecTransport {
 public:
  // Waits until the client has opened the streams the request asked for;
  // null when it does not within `timeout` or goes away.
  static std::unique_ptr<SpdyExecTransport> Open(
      SpdySession& session, const ExecStreams& streams, bool v4,
      const std::function<bool()>& stopping, std::chrono::milliseconds timeout);

  Got Next(std::string* data, std::chrono::milliseconds wait) override;
  bool MarksStdinEnd() const override { return true; }
  bool Send(int fd, std::string_view data) override;
  void Finish(const ExecOutcome& outcome,
              const std::vector<std::string>& command) override;

 private:
  SpdyExecTransport(SpdySession& session, bool v4)
      : session_(session), v4_(v4) {}
  // Handles an event; true when it is stdin (its data, or its end).
  bool Take(SpdySession::Event& e);

  SpdySession& session_;
  bool v4_;
  uint32_t error_ = 0, stdin_ = 0, stdout_ = 0, stderr_ = 0, resize_ = 0;
  std::deque<std::string> early_;  // stdin that came while streams opened
  bool stdin_closed_ = false;
  bool gone_ = false;
};

}  // namespace kmock::server::stream

#endif  // KMOCK_SERVER_STREAM_SPDY_EXEC_H_
