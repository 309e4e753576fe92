// Many concurrent watch streams read by a few threads: each thread opens its
// share of the watches (blocking TCP connect, TLS handshake with the client
// certificate, GET, response headers), then switches them to non-blocking and
// reads them all through one epoll set, decoding the chunked body and noting
// every event's resourceVersion with the monotonic time its bytes were read.
// Open, WaitQuiet and Stop are called from one controlling thread; the
// counters may be read from any thread while the readers run.
#ifndef KMOCK_BENCH_FANOUT_WATCH_FLEET_H_
#define KMOCK_BENCH_FANOUT_WATCH_FLEET_H_

#include <openssl/ssl.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fanout/api_client.h"

namespace kmock::bench {

struct Arrival {
  int64_t resource_version;
  int64_t ns;  // NowNs() when the event's last bytes were read
};

struct FleetOptions {
  ApiEndpoint endpoint;
  std::string path;  // the watch URL, with ?watch=1&resourceVersion=...
  int watchers = 100;
  int threads = 2;
};

class WatchFleet {
 public:
  WatchFleet();
  ~WatchFleet();
  WatchFleet(const WatchFleet&) = delete;
  WatchFleet& operator=(const WatchFleet&) = delete;

  // Opens every watch and starts the readers; returns "" or the first error.
  std::string Open(const FleetOptions& options);

  // Waits until `target` events were delivered in total or none arrived for
  // quiet_ms, at most timeout_ms.
  void WaitQuiet(int64_t target, int quiet_ms, int timeout_ms) const;

  // Stops and joins the readers and closes the streams.
  void Stop();

  // After Stop: every ADDED, MODIFIED or DELETED event any watcher read.
  std::vector<Arrival> TakeArrivals();

  int64_t events() const { return events_.load(); }
  int64_t error_events() const { return error_events_.load(); }
  int ended_streams() const { return ended_.load(); }
  double open_seconds() const { return open_seconds_; }

 private:
  struct Stream;
  struct Reader;

  std::string OpenStream(SSL_CTX* ctx, Stream* s);
  void ReadLoop(Reader* r);
  void ReadReady(Reader* r, Stream* s, char* buf, size_t size);

  SSL_CTX* ctx_ = nullptr;
  FleetOptions options_;
  std::vector<std::unique_ptr<Reader>> readers_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> events_{0};
  std::atomic<int64_t> error_events_{0};
  std::atomic<int> ended_{0};
  double open_seconds_ = 0;
};

}  // namespace kmock::bench

#endif  // KMOCK_BENCH_FANOUT_WATCH_FLEET_H_
