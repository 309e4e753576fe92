// `kubectl port-forward`: the connections a client forwards to a pod's
// ports, over the two protocols clients speak.
//   SPDY (portforward.k8s.io; kubectl 1.27-1.30 directly, 1.31+ inside
//   WebSocket messages): every forwarded connection is a pair of streams
//   the client opens, `error` then `data`, with the same `requestid` and
//   `port` headers. A connection that cannot be made is a message on the
//   error stream.
//   WebSocket channels (v4.channel.k8s.io; the Python client): the ports
//   are the request's `ports` parameter, each with a data channel 2i and
//   an error channel 2i+1 whose first message is the port number (two
//   bytes, little-endian); one connection per port for the whole session.
//
// Thread safety: one session per connection, on one thread.
#ifndef KMOCK_SERVER_STREAM_PORTFORWARD_H_
#define KMOCK_SERVER_STREAM_PORTFORWARD_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "server/stream/spdy_session.h"
#include "server/stream/upgraded_conn.h"

namespace kmock::server::stream {

// The far end of a forwarded connection: a server in the pod.
class ForwardedConn {
 public:
  virtual ~ForwardedConn() = default;
  // The server's answer to what the client sent.
  virtual std::string Send(std::string_view data) = 0;
  // The server closed its side.
  virtual bool closed() const = 0;
};

// Connects to a port of the pod; the error's message is what the client
// is told (the kubelet's words).
using PortDialer =
    std::function<Result<std::unique_ptr<ForwardedConn>>(int port)>;

void ServeSpdyPortForward(SpdySession& session, const PortDialer& dial,
                          const std::function<bool()>& stopping);

void ServeWebSocketPortForward(UpgradedConn& conn,
                               const std::vector<int>& ports,
                               const PortDialer& dial,
                               const std::function<bool()>& stopping);

// The `ports` parameter ("80,8080"): the ports, or an error's message.
Result<std::vector<int>> ParsePortList(const std::vector<std::string>& values);

}  // namespace kmock::server::stream

#endif  // KMOCK_SERVER_STREAM_PORTFORWARD_H_
