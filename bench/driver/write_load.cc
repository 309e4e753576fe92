#include "driver/write_load.h"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <thread>
#include <vector>

namespace kmock::bench {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<int64_t> g_write_connects{0};

struct ConnectionStats {
  std::vector<int64_t> latencies_us;
  int64_t errors = 0;
  int64_t warmup_requests = 0;
  std::string first_error;
};

std::string Describe(const httplib::Result& res) {
  if (!res) return "transport error: " + httplib::to_string(res.error());
  return "status " + std::to_string(res->status) + ": " +
         res->body.substr(0, 300);
}

Clock::duration Seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(s));
}

}  // namespace

std::unique_ptr<httplib::ClientImpl> MakeAnyClient(const Endpoint& endpoint,
                                                   bool plain_http,
                                                   bool keep_alive) {
  std::unique_ptr<httplib::ClientImpl> cli;
  if (plain_http) {
    cli = std::make_unique<httplib::ClientImpl>(endpoint.host, endpoint.port);
  } else {
    cli = MakeClient(endpoint);
  }
  cli->set_keep_alive(keep_alive);
  cli->set_tcp_nodelay(true);
  cli->set_connection_timeout(2, 0);
  cli->set_read_timeout(10, 0);
  cli->set_write_timeout(10, 0);
  cli->set_socket_options([](socket_t) { g_write_connects.fetch_add(1); });
  return cli;
}

httplib::Result SendRequest(httplib::ClientImpl& cli, const std::string& method,
                            const std::string& path,
                            const httplib::Headers& headers,
                            const std::string& body,
                            const std::string& content_type) {
  if (method == "POST")
    return cli.Post(path.c_str(), headers, body, content_type.c_str());
  if (method == "PUT")
    return cli.Put(path.c_str(), headers, body, content_type.c_str());
  if (method == "PATCH")
    return cli.Patch(path.c_str(), headers, body, content_type.c_str());
  return cli.Get(path.c_str(), headers);
}

RequestLoadResult RunRequestLoad(const RequestLoadOptions& o) {
  RequestLoadResult result;
  const int n = std::max(1, o.connections);
  std::vector<ConnectionStats> stats(n);
  std::atomic<int64_t> sequence{o.first_n};
  std::atomic<int64_t> issued{0};
  std::atomic<size_t> first_bytes{0};
  Clock::time_point start, end;
  std::barrier sync(n, [&]() noexcept {
    start = Clock::now();
    end = start + Seconds(o.duration_seconds);
  });
  const int64_t connects_before = g_write_connects.load();

  auto worker = [&](int id) {
    ConnectionStats& st = stats[id];
    auto cli = MakeAnyClient(o.endpoint, o.plain_http, o.keep_alive);
    std::string path, body;
    // One request: true when its status is one of ok_statuses.
    auto one = [&](std::string* error) {
      path.clear();
      body.clear();
      o.make(sequence.fetch_add(1), &path, &body);
      auto res =
          SendRequest(*cli, o.method, path, o.headers, body, o.content_type);
      if (res && o.ok_statuses.count(res->status)) {
        size_t expect = 0;
        first_bytes.compare_exchange_strong(expect, res->body.size());
        return true;
      }
      if (error->empty()) *error = Describe(res);
      return false;
    };
    // At least one good request (handshake outside the clock), then more
    // until the warm-up time is over; give up after 20 failures.
    const auto warm_end = Clock::now() + Seconds(o.warmup_seconds);
    int failures = 0;
    bool warmed = false;
    std::string warm_error;
    while (failures < 20 && (!warmed || Clock::now() < warm_end)) {
      ++st.warmup_requests;
      if (one(&warm_error)) {
        warmed = true;
      } else {
        ++failures;
      }
    }
    if (!warmed) {
      st.first_error = "warm-up: " + warm_error;
      st.errors = 1;
    }
    sync.arrive_and_wait();
    if (!warmed) return;
    st.latencies_us.reserve(std::min<int64_t>(o.max_requests / n + 1, 1 << 20));
    while (issued.fetch_add(1) < o.max_requests) {
      const auto t0 = Clock::now();
      if (t0 >= end) break;
      const bool ok = one(&st.first_error);
      const auto t1 = Clock::now();
      if (ok) {
        st.latencies_us.push_back(
            std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0)
                .count());
      } else {
        ++st.errors;
      }
    }
  };

  std::vector<std::thread> threads;
  threads.reserve(n);
  for (int i = 0; i < n; ++i) threads.emplace_back(worker, i);
  for (auto& t : threads) t.join();
  const auto finished = Clock::now();

  std::vector<int64_t> all;
  for (auto& st : stats) {
    all.insert(all.end(), st.latencies_us.begin(), st.latencies_us.end());
    result.errors += st.errors;
    result.warmup_requests += st.warmup_requests;
    if (result.first_error.empty()) result.first_error = st.first_error;
  }
  result.requests = static_cast<int64_t>(all.size());
  result.seconds = std::chrono::duration<double>(finished - start).count();
  if (result.seconds > 0)
    result.requests_per_second = result.requests / result.seconds;
  result.latency = Summarize(all);
  result.connects = g_write_connects.load() - connects_before;
  result.last_n = sequence.load() - 1;
  result.response_bytes = first_bytes.load();
  return result;
}

}  // namespace kmock::bench
