#include "driver/watch_latency.h"

#include <atomic>
#include <barrier>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "driver/request_template.h"
#include "driver/write_load.h"

namespace kmock::bench {
namespace {

using Clock = std::chrono::steady_clock;

int64_t Micros(Clock::duration d) {
  return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

// One timed write.
struct Write {
  int64_t rv = 0;
  Clock::time_point sent, acked;
};

// What the watch thread has seen, shared with the writers.
class EventLog {
 public:
  void Seen(int64_t rv, Clock::time_point at) {
    std::lock_guard<std::mutex> lock(mu_);
    seen_.emplace(rv, at);
    cv_.notify_all();
  }
  void Fail(const std::string& error) {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.empty()) error_ = error;
    failed_ = true;
    cv_.notify_all();
  }
  // Waits until rv was seen; false on deadline or a failed watch.
  bool WaitFor(int64_t rv, Clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_until(lock, deadline, [&] {
      return failed_ || seen_.count(rv) > 0;
    }) && !failed_;
  }
  std::optional<Clock::time_point> When(int64_t rv) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = seen_.find(rv);
    if (it == seen_.end()) return std::nullopt;
    return it->second;
  }
  size_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_.size();
  }
  std::string error() {
    std::lock_guard<std::mutex> lock(mu_);
    return error_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::unordered_map<int64_t, Clock::time_point> seen_;
  bool failed_ = false;
  std::string error_;
};

// Splits the watch stream into lines and logs each event's revision.
class StreamReader {
 public:
  explicit StreamReader(EventLog* log) : log_(log) {}
  void Take(const char* data, size_t len, Clock::time_point at) {
    buf_.append(data, len);
    size_t nl;
    while ((nl = buf_.find('\n')) != std::string::npos) {
      std::string_view line(buf_.data(), nl);
      if (line.find("\"type\":\"ERROR\"") != std::string_view::npos) {
        log_->Fail("watch ERROR event: " + std::string(line.substr(0, 300)));
      } else if (auto rv = FindResourceVersion(line)) {
        log_->Seen(*rv, at);
      }
      buf_.erase(0, nl + 1);
    }
  }

 private:
  EventLog* log_;
  std::string buf_;
};

}  // namespace

std::optional<int64_t> FindResourceVersion(std::string_view json) {
  static constexpr std::string_view kKey = "\"resourceVersion\":\"";
  size_t at = json.find(kKey);
  if (at == std::string_view::npos) return std::nullopt;
  at += kKey.size();
  int64_t v = 0;
  size_t digits = 0;
  for (; at < json.size() && json[at] >= '0' && json[at] <= '9'; ++at) {
    v = v * 10 + (json[at] - '0');
    ++digits;
  }
  if (digits == 0 || at >= json.size() || json[at] != '"') return std::nullopt;
  return v;
}

WatchLatencyResult RunWatchLatency(const WatchLatencyOptions& o) {
  WatchLatencyResult result;
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(o.timeout_seconds));
  std::atomic<int64_t> sequence{o.first_n};
  const httplib::Headers no_headers;

  // One write on cli; its revision, or nullopt (and result.error set).
  auto write = [&](httplib::ClientImpl& cli, Write* w, std::string* error) {
    const std::string body = ExpandTemplate(o.body_template, sequence++);
    w->sent = Clock::now();
    auto res = SendRequest(cli, o.write_method, o.write_path, no_headers, body,
                           o.content_type);
    w->acked = Clock::now();
    if (!res || res->status != 200) {
      *error = !res
                   ? "write: transport error " + httplib::to_string(res.error())
                   : "write: status " + std::to_string(res->status) + ": " +
                         res->body.substr(0, 300);
      return false;
    }
    auto rv = FindResourceVersion(res->body);
    if (!rv) {
      *error = "write response without a resourceVersion";
      return false;
    }
    w->rv = *rv;
    return true;
  };

  // The first write tells the revision the watch starts from.
  auto first_cli = MakeAnyClient(o.endpoint, false, true);
  Write first;
  if (!write(*first_cli, &first, &result.error)) return result;

  EventLog log;
  StreamReader reader(&log);
  std::atomic<bool> stop{false};
  auto watch_cli = MakeClient(o.endpoint);
  watch_cli->set_read_timeout(static_cast<time_t>(o.timeout_seconds) + 5, 0);
  const std::string watch_path =
      o.watch_path + "&resourceVersion=" + std::to_string(first.rv) +
      "&timeoutSeconds=" + std::to_string(static_cast<int>(o.timeout_seconds));
  std::thread watcher([&] {
    auto res = watch_cli->Get(
        watch_path.c_str(), no_headers,
        [&](const httplib::Response& r) {
          if (r.status != 200)
            log.Fail("watch: status " + std::to_string(r.status));
          return r.status == 200;
        },
        [&](const char* data, size_t len) {
          reader.Take(data, len, Clock::now());
          return !stop.load();
        });
    if (!stop.load())
      log.Fail(res ? "watch ended early"
                   : "watch: " + httplib::to_string(res.error()));
  });

  // Warm-up: a few updates, each awaited on the watch, so the stream is
  // established and flowing before the clock starts.
  for (int i = 0; i < 3 && result.error.empty(); ++i) {
    Write w;
    if (write(*first_cli, &w, &result.error) && !log.WaitFor(w.rv, deadline))
      result.error = "warm-up event never arrived: " + log.error();
  }

  const int n = std::max(1, o.connections);
  std::vector<std::vector<Write>> writes(n);
  std::vector<std::string> errors(n);
  std::atomic<int> remaining{result.error.empty() ? o.updates : 0};
  Clock::time_point start;
  std::barrier ready(n, [&]() noexcept { start = Clock::now(); });
  auto writer = [&](int id) {
    std::unique_ptr<httplib::ClientImpl> own;
    httplib::ClientImpl* cli = first_cli.get();
    if (id > 0) {
      own = MakeAnyClient(o.endpoint, false, true);
      cli = own.get();
      Write warm;  // the handshake, outside the measured writes
      if (!write(*cli, &warm, &errors[id])) remaining.store(0);
    }
    ready.arrive_and_wait();
    while (remaining.fetch_sub(1) > 0 && Clock::now() < deadline) {
      Write w;
      if (!write(*cli, &w, &errors[id])) return;
      writes[id].push_back(w);
      if (o.wait_for_event && !log.WaitFor(w.rv, deadline)) {
        errors[id] = "event of revision " + std::to_string(w.rv) +
                     " never arrived " + log.error();
        return;
      }
    }
  };
  std::vector<std::thread> writers;
  for (int i = 0; i < n; ++i) writers.emplace_back(writer, i);
  for (auto& t : writers) t.join();
  for (const std::string& e : errors) {
    if (result.error.empty() && !e.empty()) result.error = e;
  }

  // Every write's event, then stop the watch.
  Clock::time_point last_event = start;
  std::vector<int64_t> rtt, to_event, after_ack;
  for (const auto& per : writes) {
    for (const Write& w : per) {
      ++result.updates;
      rtt.push_back(Micros(w.acked - w.sent));
      if (!log.WaitFor(w.rv, deadline)) continue;
      Clock::time_point at = *log.When(w.rv);
      ++result.events_matched;
      if (at < w.acked) ++result.events_before_ack;
      if (at > last_event) last_event = at;
      to_event.push_back(Micros(at - w.sent));
      after_ack.push_back(Micros(at - w.acked));
    }
  }
  stop.store(true);
  watch_cli->stop();
  watcher.join();

  // Not ours: events beyond the warm-ups (3, plus one per extra writer).
  result.other_events =
      static_cast<int64_t>(log.size()) - 3 - (n - 1) - result.events_matched;
  if (result.other_events < 0) result.other_events = 0;
  result.seconds = std::chrono::duration<double>(last_event - start).count();
  if (result.seconds > 0)
    result.updates_per_second = result.updates / result.seconds;
  result.write_rtt = Summarize(rtt);
  result.send_to_event = Summarize(to_event);
  result.ack_to_event = Summarize(after_ack);
  result.last_n = sequence.load() - 1;
  if (result.error.empty() && result.events_matched < result.updates)
    result.error = std::to_string(result.updates - result.events_matched) +
                   " events never arrived " + log.error();
  result.ok = result.error.empty() && result.updates == o.updates;
  return result;
}

}  // namespace kmock::bench
