// Plain HTTPS requests to a kubemock on loopback for the fan-out tool: where
// to connect (Endpoint), a tuned httplib client, and monotonic nanoseconds.
// MakeApiClient returns a client for one thread; the functions are
// thread-safe.
#ifndef KMOCK_BENCH_FANOUT_API_CLIENT_H_
#define KMOCK_BENCH_FANOUT_API_CLIENT_H_

#include <httplib.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kmock::bench {

struct ApiEndpoint {
  int port = 0;           // on 127.0.0.1
  std::string ca_file;    // the server's CA
  std::string cert_file;  // client certificate (the admin's)
  std::string key_file;
};

// Keep-alive, TCP_NODELAY, the server verified against the CA, the client
// certificate presented; read timeout long enough for a LIST of 150,000 pods.
std::unique_ptr<httplib::SSLClient> MakeApiClient(const ApiEndpoint& endpoint);

// CLOCK_MONOTONIC in nanoseconds.
int64_t NowNs();

// Nearest-rank percentile (0 < p <= 100) of sorted values; 0 if empty.
int64_t Percentile(const std::vector<int64_t>& sorted, double p);

// s as a JSON string literal (control characters become spaces).
std::string JsonString(const std::string& s);

// Creates the namespace; an existing one is fine. Returns "" or an error.
std::string EnsureNamespace(httplib::SSLClient& client, const std::string& ns);

}  // namespace kmock::bench

#endif  // KMOCK_BENCH_FANOUT_API_CLIENT_H_
