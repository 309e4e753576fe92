// `kubectl exec` over WebSocket: the channel protocols v4.channel.k8s.io
// and v5.channel.k8s.io that kubectl 1.30+ (and the Python client) speak.
// Each binary message starts with its channel: 0 stdin, 1 stdout, 2
// stderr, 3 the final status (a metav1.Status, with the exit code as a
// cause when it is not 0), 4 terminal resizes; v5 adds 255, by which the
// client says a channel of its own (stdin) is closed.
//
// Thread safety: one transport per connection, on one thread.
#ifndef KMOCK_SERVER_STREAM_CHANNEL_EXEC_H_
#define KMOCK_SERVER_STREAM_CHANNEL_EXEC_H_

#include <string>

#include "server/stream/exec_session.h"
#include "server/stream/upgraded_conn.h"

namespace kmock::server::stream {

class WebSocketExecTransport : public ExecTransport {
 public:
  WebSocketExecTransport(UpgradedConn& conn, bool v5) : conn_(conn), v5_(v5) {}
  Got Next(std::string* data, std::chrono::milliseconds wait) override;
  bool MarksStdinEnd() const override { return v5_; }
  bool Send(int fd, std::string_view data) override;
  void Finish(const ExecOutcome& outcome,
              const std::vector<std::string>& command) override;

 private:
  UpgradedConn& conn_;
  bool v5_;
  std::string buf_;  // frames not parsed yet
};

}  // namespace kmock::server::stream

#endif  // KMOCK_SERVER_STREAM_CHANNEL_EXEC_H_
