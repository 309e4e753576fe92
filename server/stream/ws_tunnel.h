// A byte stream carried in WebSocket binary messages: kubectl 1.31 and
// later tunnel port-forward's SPDY session this way (subprotocol
// "SPDY/3.1+portforward.k8s.io"). Reads return the payloads of the
// client's messages (pings answered, a close ends the stream); each write
// is one binary message.
//
// Thread safety: one thread per connection.
#ifndef KMOCK_SERVER_STREAM_WS_TUNNEL_H_
#define KMOCK_SERVER_STREAM_WS_TUNNEL_H_

#include <string>

#include "server/stream/upgraded_conn.h"

namespace kmock::server::stream {

class WsTunnel : public UpgradedConn {
 public:
  explicit WsTunnel(UpgradedConn& inner) : inner_(inner) {}
  int Read(char* buf, size_t n, std::chrono::milliseconds timeout) override;
  bool Write(std::string_view bytes) override;

 private:
  UpgradedConn& inner_;
  std::string raw_;      // frames not parsed yet
  std::string payload_;  // message bytes not read yet
  bool closed_ = false;
};

}  // namespace kmock::server::stream

#endif  // KMOCK_SERVER_STREAM_WS_TUNNEL_H_
