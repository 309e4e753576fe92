// HTTPS keep-alive load against one loopback endpoint: N connections, each
// driven by its own thread with its own httplib::SSLClient, for a bounded
// time and request count; reports throughput and latency percentiles.
// RunLoad and FetchOnce are safe to call from any thread; they share nothing
// but process-wide counters of their own.
#ifndef KMOCK_BENCH_DRIVER_HTTPS_LOAD_H_
#define KMOCK_BENCH_DRIVER_HTTPS_LOAD_H_

#include <httplib.h>

#include <cstdint>
#include <memory>
#include <string>

namespace kmock::bench {

// Where to connect and with which credentials.
struct Endpoint {
  std::string host = "127.0.0.1";  // loopback only (IsLoopbackHost)
  int port = 0;
  std::string ca_file;    // verify the server against this CA; empty: no check
  std::string cert_file;  // client certificate (PEM); empty: none
  std::string key_file;   // its private key (PEM)
};

// True for 127.0.0.0/8, ::1 and "localhost": the driver talks to nothing else.
bool IsLoopbackHost(const std::string& host);

// A keep-alive client with TCP_NODELAY, bounded timeouts, and a counter of the
// TCP connections it opens (so reconnects show up in the results).
std::unique_ptr<httplib::SSLClient> MakeClient(const Endpoint& endpoint);

struct LoadOptions {
  Endpoint endpoint;
  std::string path;
  httplib::Headers headers;
  int connections = 1;
  double warmup_seconds = 0.5;  // per connection, before the clock starts
  double duration_seconds = 5;
  int64_t max_requests = 1000000;  // across all connections, timed phase
};

struct LoadResult {
  int64_t requests = 0;  // completed with status 200
  int64_t errors = 0;    // transport errors and other statuses
  // 200s whose body size differs from the first one's (a LIST carries the
  // store's revision, which grows); counted in requests too.
  int64_t other_sizes = 0;
  double seconds = 0;  // length of the timed phase
  double requests_per_second = 0;
  double p50_us = 0;
  double p99_us = 0;
  double mean_us = 0;
  double max_us = 0;
  int64_t connects = 0;       // TCP connections opened, warm-up included
  size_t response_bytes = 0;  // body size of the first good response
  std::string first_error;
};

// Runs the load. Every response must have status 200; anything else counts
// as an error.
LoadResult RunLoad(const LoadOptions& options);

// One GET; fills *status and *body, or returns false and sets *error.
bool FetchOnce(const Endpoint& endpoint, const std::string& path,
               const httplib::Headers& headers, int* status, std::string* body,
               std::string* error);

}  // namespace kmock::bench

#endif  // KMOCK_BENCH_DRIVER_HTTPS_LOAD_H_
