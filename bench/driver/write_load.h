// Request load with a distinct request each time: N connections, each driven
// by its own thread, issue requests built by a RequestMaker from a shared
// sequence number (creates with new names, updates and patches with new
// values, etcd puts of new keys) for a bounded time and count, and report
// throughput and per-request latency percentiles. Any method, over TLS (the
// API server) or plain HTTP (etcd), with keep-alive or with a new connection
// per request (the connection storm). RunRequestLoad may be called from any
// thread; the maker is called concurrently from every connection's thread
// and must be thread-safe.
#ifndef KMOCK_BENCH_DRIVER_WRITE_LOAD_H_
#define KMOCK_BENCH_DRIVER_WRITE_LOAD_H_

#include <httplib.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "driver/https_load.h"
#include "driver/latency.h"

namespace kmock::bench {

// Fills the path and body of request number n.
using RequestMaker =
    std::function<void(int64_t n, std::string* path, std::string* body)>;

struct RequestLoadOptions {
  Endpoint endpoint;
  bool plain_http = false;  // no TLS (etcd on loopback)
  // false: every request opens a new TCP connection and, over TLS, does a
  // full handshake ("Connection: close"); the connection storm.
  bool keep_alive = true;
  std::string method = "GET";  // GET, POST, PUT or PATCH
  std::string content_type;    // for requests with a body
  httplib::Headers headers;
  RequestMaker make;
  int64_t first_n = 1;  // the first sequence number handed out
  std::set<int> ok_statuses = {200};
  int connections = 1;
  double warmup_seconds = 0.5;  // per connection, before the clock starts
  double duration_seconds = 5;
  int64_t max_requests = 1000000;  // across all connections, timed phase
};

struct RequestLoadResult {
  int64_t requests = 0;  // completed with an ok status, timed phase
  int64_t errors = 0;    // transport errors and other statuses, timed phase
  int64_t warmup_requests = 0;
  double seconds = 0;  // length of the timed phase
  double requests_per_second = 0;
  LatencySummary latency;
  int64_t connects = 0;       // TCP connections opened, warm-up included
  int64_t last_n = 0;         // the last sequence number handed out
  size_t response_bytes = 0;  // body size of the first good response
  std::string first_error;
};

// A client for the endpoint: TLS unless plain_http, TCP_NODELAY, bounded
// timeouts; its TCP connections are counted like MakeClient's.
std::unique_ptr<httplib::ClientImpl> MakeAnyClient(const Endpoint& endpoint,
                                                   bool plain_http,
                                                   bool keep_alive);

// One request of the given method on cli.
httplib::Result SendRequest(httplib::ClientImpl& cli, const std::string& method,
                            const std::string& path,
                            const httplib::Headers& headers,
                            const std::string& body,
                            const std::string& content_type);

RequestLoadResult RunRequestLoad(const RequestLoadOptions& options);

}  // namespace kmock::bench

#endif  // KMOCK_BENCH_DRIVER_WRITE_LOAD_H_
