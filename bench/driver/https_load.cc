#include "driver/https_load.h"

#include <arpa/inet.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <thread>
#include <vector>

namespace kmock::bench {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<int64_t> g_connects{0};

double Percentile(std::vector<uint32_t>& sorted_us, double p) {
  if (sorted_us.empty()) return 0;
  size_t i = static_cast<size_t>(p * (sorted_us.size() - 1) + 0.5);
  return sorted_us[std::min(i, sorted_us.size() - 1)];
}

// The state one connection's thread fills in.
struct ConnectionStats {
  std::vector<uint32_t> latencies_us;
  int64_t errors = 0;
  std::string first_error;
};

std::string DescribeFailure(const httplib::Result& res) {
  if (!res) return "transport error: " + httplib::to_string(res.error());
  return "status " + std::to_string(res->status) + ": " +
         res->body.substr(0, 200);
}

}  // namespace

bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  in_addr a{};
  if (inet_pton(AF_INET, host.c_str(), &a) != 1) return false;
  return (ntohl(a.s_addr) >> 24) == 127;
}

std::unique_ptr<httplib::SSLClient> MakeClient(const Endpoint& endpoint) {
  std::unique_ptr<httplib::SSLClient> cli;
  if (endpoint.cert_file.empty()) {
    cli = std::make_unique<httplib::SSLClient>(endpoint.host, endpoint.port);
  } else {
    cli = std::make_unique<httplib::SSLClient>(
        endpoint.host, endpoint.port, endpoint.cert_file, endpoint.key_file);
  }
  if (endpoint.ca_file.empty()) {
    cli->enable_server_certificate_verification(false);
  } else {
    cli->set_ca_cert_path(endpoint.ca_file);
    cli->enable_server_certificate_verification(true);
  }
  cli->set_keep_alive(true);
  cli->set_tcp_nodelay(true);
  cli->set_connection_timeout(2, 0);
  cli->set_read_timeout(10, 0);
  cli->set_write_timeout(10, 0);
  cli->set_socket_options([](socket_t) { g_connects.fetch_add(1); });
  return cli;
}

bool FetchOnce(const Endpoint& endpoint, const std::string& path,
               const httplib::Headers& headers, int* status, std::string* body,
               std::string* error) {
  auto cli = MakeClient(endpoint);
  if (!cli->is_valid()) {
    *error = "cannot load the client certificate or CA";
    return false;
  }
  auto res = cli->Get(path.c_str(), headers);
  if (!res) {
    *error = "transport error: " + httplib::to_string(res.error());
    return false;
  }
  *status = res->status;
  *body = res->body;
  return true;
}

LoadResult RunLoad(const LoadOptions& o) {
  LoadResult result;
  const int n = std::max(1, o.connections);
  std::vector<ConnectionStats> stats(n);
  std::atomic<int64_t> issued{0};
  std::atomic<size_t> want_bytes{0};  // 0 until the first good response
  std::atomic<int64_t> other_sizes{0};
  Clock::time_point start, end;
  // Every connection warms up (handshake included) before the clock starts.
  std::barrier sync(n, [&]() noexcept {
    other_sizes.store(0);  // count the timed phase only
    start = Clock::now();
    end = start + std::chrono::duration_cast<Clock::duration>(
                      std::chrono::duration<double>(o.duration_seconds));
  });
  const int64_t connects_before = g_connects.load();

  auto good = [&](const httplib::Result& res) {
    if (!res || res->status != 200) return false;
    size_t expect = 0;
    if (want_bytes.compare_exchange_strong(expect, res->body.size()))
      return true;
    if (res->body.size() != want_bytes.load()) other_sizes.fetch_add(1);
    return true;
  };

  auto worker = [&](int id) {
    ConnectionStats& st = stats[id];
    auto cli = MakeClient(o.endpoint);
    auto note_error = [&](const httplib::Result& res) {
      ++st.errors;
      if (st.first_error.empty()) st.first_error = DescribeFailure(res);
    };
    const auto warm_end =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(o.warmup_seconds));
    int warm = 0;
    do {  // at least one request, so the handshake is outside the clock
      auto res = cli->Get(o.path.c_str(), o.headers);
      if (!good(res) && ++warm > 100) break;
    } while (Clock::now() < warm_end);
    st.errors = 0;
    st.first_error.clear();
    sync.arrive_and_wait();
    st.latencies_us.reserve(std::min<int64_t>(o.max_requests / n + 1, 1 << 20));
    while (issued.fetch_add(1) < o.max_requests) {
      const auto t0 = Clock::now();
      if (t0 >= end) break;
      auto res = cli->Get(o.path.c_str(), o.headers);
      const auto t1 = Clock::now();
      if (good(res)) {
        st.latencies_us.push_back(static_cast<uint32_t>(
            std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0)
                .count()));
      } else {
        note_error(res);
      }
    }
  };

  std::vector<std::thread> threads;
  threads.reserve(n);
  for (int i = 0; i < n; ++i) threads.emplace_back(worker, i);
  for (auto& t : threads) t.join();
  const auto finished = Clock::now();

  std::vector<uint32_t> all;
  double sum = 0;
  for (auto& st : stats) {
    all.insert(all.end(), st.latencies_us.begin(), st.latencies_us.end());
    result.errors += st.errors;
    if (result.first_error.empty()) result.first_error = st.first_error;
  }
  std::sort(all.begin(), all.end());
  for (uint32_t v : all) sum += v;
  result.requests = static_cast<int64_t>(all.size());
  // Until the last response: the final requests end a little after `end`.
  result.seconds = std::chrono::duration<double>(finished - start).count();
  if (result.seconds > 0)
    result.requests_per_second = result.requests / result.seconds;
  result.p50_us = Percentile(all, 0.50);
  result.p99_us = Percentile(all, 0.99);
  result.mean_us = all.empty() ? 0 : sum / all.size();
  result.max_us = all.empty() ? 0 : all.back();
  result.connects = g_connects.load() - connects_before;
  result.response_bytes = want_bytes.load();
  result.other_sizes = other_sizes.load();
  return result;
}

}  // namespace kmock::bench
