// The server's side of a SPDY/3.1 session (spdy.h) over an upgraded
// connection: the streams the client opens, their data and their ends, one
// event at a time. Every stream the client opens is accepted at once (a
// SYN_REPLY), as Kubernetes' stream servers do; pings are answered; flow
// control is not enforced (neither side of Kubernetes' streams does).
//
// Thread safety: one thread per session.
#ifndef KMOCK_SERVER_STREAM_SPDY_SESSION_H_
#define KMOCK_SERVER_STREAM_SPDY_SESSION_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

#include "server/stream/spdy.h"
#include "server/stream/upgraded_conn.h"

namespace kmock::server::stream {

class SpdySession {
 public:
  struct Event {
    enum Kind {
      kOpened,   // the client opened `stream` with `headers`
      kData,     // data on `stream`
      kClosed,   // the client's half of `stream` ended (FIN)
      kReset,    // the client reset `stream`
      kNothing,  // nothing within the wait
      kEnd,      // the connection ended or broke
    };
    Kind kind = kNothing;
    uint32_t stream = 0;
    SpdyHeaders headers;
    std::string data;
  };

  explicit SpdySession(UpgradedConn& conn) : conn_(conn) {}

  Event Next(std::chrono::milliseconds wait);

  // Data on a stream (split into frames); fin ends the server's half.
  bool Send(uint32_t stream, std::string_view data, bool fin = false);
  bool Reset(uint32_t stream, uint32_t status);
  // Says the session is over, before the connection closes.
  void GoAway();
  // Reads what the client still sends until it closes, for at most `max`.
  void Drain(std::chrono::milliseconds max);

 private:
  UpgradedConn& conn_;
  SpdyCodec codec_;
  std::string buf_;
  std::deque<Event> pending_;
  uint32_t last_stream_ = 0;
  bool ended_ = false;
};

}  // namespace kmock::server::stream

#endif  // KMOCK_SERVER_STREAM_SPDY_SESSION_H_
