// The raw bytes of a connection after a 101 Switching Protocols: what the
// stream protocols (WebSocket, SPDY) read and write.
//
// Thread safety: one session uses a connection, from one thread.
#ifndef KMOCK_SERVER_STREAM_UPGRADED_CONN_H_
#define KMOCK_SERVER_STREAM_UPGRADED_CONN_H_

#include <chrono>
#include <cstddef>
#include <string_view>

namespace kmock::server::stream {

class UpgradedConn {
 public:
  virtual ~UpgradedConn() = default;
  // Up to n bytes: > 0 read, 0 nothing within the timeout, < 0 closed.
  virtual int Read(char* buf, size_t n, std::chrono::milliseconds timeout) = 0;
  virtual bool Write(std::string_view bytes) = 0;
};

}  // namespace kmock::server::stream

#endif  // KMOCK_SERVER_STREAM_UPGRADED_CONN_H_
