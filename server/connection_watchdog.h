// Deadlines for the phases of a connection that the HTTP library bounds
// only per read: the TLS handshake plus the first request header, a request
// body, the idle wait for the next keep-alive request. A client that trickles
// one byte every few seconds would otherwise hold its worker forever
// (slowloris). It also cuts a connection whose peer stops taking what the
// server sends: bytes wait in the socket's send queue and none is
// acknowledged for the socket's write timeout. That bounds a response as a
// whole, however the HTTP library splits it into send calls, each of which
// the socket's own send timeout bounds only singly.
//
// Each open connection is tracked by its socket with an optional deadline;
// a background thread shuts down (shutdown(2), both directions) every socket
// whose deadline has passed, which wakes the worker blocked on it and makes
// the library close the connection. The socket must be forgotten (Forget)
// before it is closed, so that a reused descriptor number is never touched.
//
// Thread safety: every method is safe from any thread.
#ifndef KMOCK_SERVER_CONNECTION_WATCHDOG_H_
#define KMOCK_SERVER_CONNECTION_WATCHDOG_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace kmock::server {

class ConnectionWatchdog {
 public:
  using SteadyTime = std::chrono::steady_clock::time_point;

  // `tick`: how often deadlines are checked (their precision).
  explicit ConnectionWatchdog(std::chrono::milliseconds tick);
  ~ConnectionWatchdog();  // calls Stop()
  ConnectionWatchdog(const ConnectionWatchdog&) = delete;
  ConnectionWatchdog& operator=(const ConnectionWatchdog&) = delete;

  // Starts the checking thread. Without it, CutExpired does the work.
  void Start();
  // Stops the thread. Idempotent.
  void Stop();

  // Starts tracking fd (replacing any earlier entry) with a deadline
  // (nullopt = none) and a write timeout: the longest the peer may leave
  // sent bytes unacknowledged while more wait (nullopt = no limit; only
  // TCP sockets can be checked).
  void Track(
      int fd, std::optional<SteadyTime> deadline,
      std::optional<std::chrono::milliseconds> write_timeout = std::nullopt);
  // Changes a tracked socket's deadline; ignored for an untracked fd.
  void SetDeadline(int fd, std::optional<SteadyTime> deadline);
  // Stops tracking fd. REQUIRES: called before fd is closed.
  void Forget(int fd);
  // Shuts down every tracked socket whose deadline is at or before now;
  // returns how many.
  int CutExpired(SteadyTime now);
  // Looks at each tracked TCP socket with a write timeout: one with bytes
  // waiting to be acknowledged whose acknowledged count has not moved since
  // `write_timeout` before now is shut down. Returns how many were cut.
  // The thread calls it once per second at most (the write timeout's
  // precision); each call costs one ioctl per socket, plus a TCP_INFO read
  // for a socket with bytes in flight.
  int CutStalled(SteadyTime now);
  // Shuts down every tracked socket (server stop).
  void CutAll();

  size_t tracked() const;
  uint64_t cut() const;      // sockets shut down for a passed deadline
  uint64_t stalled() const;  // sockets shut down by CutStalled

 private:
  void Loop();

  struct Entry {
    std::optional<SteadyTime> deadline;
    std::optional<std::chrono::milliseconds> write_timeout;
    // Acknowledged bytes at the last look, and since when that count has
    // not moved while bytes waited (nullopt: nothing waited).
    uint64_t acked = 0;
    std::optional<SteadyTime> stuck_since;
    bool cut = false;
  };

  const std::chrono::milliseconds tick_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  // guarded by mu_.
  std::map<int, Entry> sockets_;
  uint64_t cut_ = 0;      // guarded by mu_
  uint64_t stalled_ = 0;  // guarded by mu_
  bool stop_ = false;     // guarded by mu_
  std::thread thread_;
};

}  // namespace kmock::server

#endif  // KMOCK_SERVER_CONNECTION_WATCHDOG_H_
