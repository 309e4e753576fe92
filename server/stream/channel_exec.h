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

#include <chrono>
#include <string>

#include "server/stream/exec_session.h"
#include "server/stream/upgraded_conn.h"

namespace kmock::server::stream {

class WebSocketExecTransport : public ExecTransport {
 public:
  // Nothing is sent in the first kStartLatency after the upgrade, as a
  // runtime takes that long to start a process: kubectl 1.30 to 1.32 make
  // their channels only after the upgrade, and drop what comes before
  // ("Unknown stream id 3, discarding message", then "error: closed all
  // streams"), which an instant command's output and status would.
  static constexpr std::chrono::milliseconds kStartLatency{30};

  WebSocketExecTransport(
      UpgradedConn& conn, bool v5,
      std::chrono::milliseconds start_latency = kStartLatency)
      : conn_(conn),
        v5_(v5),
        start_(std::chrono::steady_clock::now() + start_latency) {}
  Got Next(std::string* data, std::chrono::milliseconds wait) override;
  bool MarksStdinEnd() const override { return v5_; }
  bool Send(int fd, std::string_view data) override;
  void Finish(const ExecOutcome& outcome,
              const std::vector<std::string>& command) override;

 private:
  // Waits out what is left of kStartLatency before the first message.
  void AwaitStart();

  UpgradedConn& conn_;
  bool v5_;
  std::chrono::steady_clock::time_point start_;
  bool started_ = false;
  std::string buf_;  // frames not parsed yet
};

}  // namespace kmock::server::stream

#endif  // KMOCK_SERVER_STREAM_CHANNEL_EXEC_H_
