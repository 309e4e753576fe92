#include "fanout/fanout_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <unordered_map>
#include <vector>

#include "fanout/stream_decoder.h"
#include "fanout/watch_fleet.h"

namespace kmock::bench {
namespace {

const httplib::Headers kAccept = {{"Accept", "application/json"}};

struct Write {
  int64_t sent_ns;
  int64_t answered_ns;
};

std::string PodName(int i) { return "fan-" + std::to_string(i); }

std::string PodJson(const std::string& ns, int i) {
  return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" +
         PodName(i) + "\",\"namespace\":\"" + ns +
         "\",\"labels\":{\"app\":\"fanout\"}},\"spec\":{\"containers\":[{"
         "\"name\":\"web\",\"image\":\"nginx:1.25\"}]}}";
}

int64_t CountOf(const std::string& s, const std::string& what) {
  int64_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos;
       p = s.find(what, p + what.size())) {
    ++n;
  }
  return n;
}

// Creates the pods and waits until all are Running, so that the kubelets are
// quiet when the watches start; returns the list's resourceVersion.
std::string SetUp(httplib::SSLClient& cli, const FanoutOptions& o,
                  int64_t* list_rv) {
  std::string err = EnsureNamespace(cli, o.ns);
  if (!err.empty()) return err;
  std::string base = "/api/v1/namespaces/" + o.ns + "/pods";
  for (int i = 0; i < o.pods; ++i) {
    auto res = cli.Post(base, kAccept, PodJson(o.ns, i), "application/json");
    if (!res) return "creating a pod: " + to_string(res.error());
    if (res->status != 201 && res->status != 409) {
      return "creating a pod: status " + std::to_string(res->status) + ": " +
             res->body.substr(0, 300);
    }
  }
  int64_t deadline = NowNs() + int64_t{30} * 1000000000;
  for (;;) {
    auto res = cli.Get(base, kAccept);
    if (!res || res->status != 200) return "listing the pods failed";
    int64_t running = CountOf(res->body, "\"phase\":\"Running\"");
    if (running >= o.pods) {
      // A moment for the last status writes, then the list to watch from.
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      res = cli.Get(base, kAccept);
      if (!res || res->status != 200) return "listing the pods failed";
      *list_rv = ListResourceVersion(res->body);
      return *list_rv > 0 ? "" : "the pod list has no resourceVersion";
    }
    if (NowNs() > deadline) {
      return "only " + std::to_string(running) + " of " +
             std::to_string(o.pods) + " pods Running after 30 s";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Percentiles Summarize(std::vector<int64_t>& values_ns) {
  std::sort(values_ns.begin(), values_ns.end());
  Percentiles p;
  p.count = static_cast<int64_t>(values_ns.size());
  p.p50 = Percentile(values_ns, 50) / 1000;
  p.p90 = Percentile(values_ns, 90) / 1000;
  p.p99 = Percentile(values_ns, 99) / 1000;
  p.max = values_ns.empty() ? 0 : values_ns.back() / 1000;
  return p;
}

// Patches the pods in turn at the given rate; returns the writes by
// resourceVersion, or sets *error.
std::unordered_map<int64_t, Write> RunWriter(httplib::SSLClient& cli,
                                             const FanoutOptions& o,
                                             std::string* error) {
  std::unordered_map<int64_t, Write> writes;
  int64_t total = std::max<int64_t>(
      1, static_cast<int64_t>(o.writes_per_second * o.seconds));
  int64_t interval_ns =
      static_cast<int64_t>(1e9 / std::max(0.001, o.writes_per_second));
  int64_t start = NowNs();
  for (int64_t n = 0; n < total; ++n) {
    int64_t due = start + n * interval_ns;
    int64_t now = NowNs();
    if (due > now) {
      std::this_thread::sleep_for(std::chrono::nanoseconds(due - now));
    }
    std::string path = "/api/v1/namespaces/" + o.ns + "/pods/" +
                       PodName(static_cast<int>(n % o.pods));
    std::string body = "{\"metadata\":{\"annotations\":{\"bench/seq\":\"" +
                       std::to_string(n) + "\"}}}";
    int64_t sent = NowNs();
    auto res =
        cli.Patch(path.c_str(), kAccept, body, "application/merge-patch+json");
    int64_t answered = NowNs();
    if (!res || res->status != 200) {
      *error =
          "patch " + std::to_string(n) + ": " +
          (res ? std::to_string(res->status) + " " + res->body.substr(0, 300)
               : to_string(res.error()));
      break;
    }
    int64_t rv = FirstResourceVersion(res->body);
    writes[rv] = {sent, answered};
  }
  return writes;
}

}  // namespace

FanoutResult RunFanout(const FanoutOptions& o) {
  FanoutResult r;
  auto cli = MakeApiClient(o.endpoint);
  int64_t list_rv = 0;
  r.error = SetUp(*cli, o, &list_rv);
  if (!r.error.empty()) return r;

  WatchFleet fleet;
  FleetOptions fo;
  fo.endpoint = o.endpoint;
  fo.path = "/api/v1/namespaces/" + o.ns +
            "/pods?watch=1&resourceVersion=" + std::to_string(list_rv) +
            "&timeoutSeconds=3600";
  fo.watchers = o.watchers;
  fo.threads = o.reader_threads;
  r.error = fleet.Open(fo);
  r.open_seconds = fleet.open_seconds();
  if (!r.error.empty()) return r;

  auto writes = RunWriter(*cli, o, &r.error);
  r.writes = static_cast<int64_t>(writes.size());
  r.expected = r.writes * o.watchers;
  fleet.WaitQuiet(r.expected, 1000, 10000);
  fleet.Stop();
  r.error_events = fleet.error_events();
  r.ended_streams = fleet.ended_streams();
  std::vector<Arrival> arrivals = fleet.TakeArrivals();

  int64_t first_sent = INT64_MAX, last_answered = 0, last_delivery = 0;
  std::vector<int64_t> rtt;
  for (const auto& [rv, w] : writes) {
    first_sent = std::min(first_sent, w.sent_ns);
    last_answered = std::max(last_answered, w.answered_ns);
    rtt.push_back(w.answered_ns - w.sent_ns);
  }
  std::vector<int64_t> from_send, from_response;
  from_send.reserve(arrivals.size());
  from_response.reserve(arrivals.size());
  for (const Arrival& a : arrivals) {
    auto it = writes.find(a.resource_version);
    if (it == writes.end()) {
      ++r.other_events;
      continue;
    }
    ++r.delivered;
    last_delivery = std::max(last_delivery, a.ns);
    from_send.push_back(a.ns - it->second.sent_ns);
    from_response.push_back(
        std::max<int64_t>(0, a.ns - it->second.answered_ns));
  }
  if (r.writes > 0) r.write_seconds = (last_answered - first_sent) / 1e9;
  if (r.delivered > 0) {
    r.delivery_seconds = (last_delivery - first_sent) / 1e9;
    r.deliveries_per_second = r.delivered / r.delivery_seconds;
  }
  r.from_send_us = Summarize(from_send);
  r.from_response_us = Summarize(from_response);
  r.write_round_trip_us = Summarize(rtt);
  return r;
}

namespace {

std::string PercentilesJson(const Percentiles& p) {
  char buf[256];
  snprintf(buf, sizeof buf,
           "{\"count\":%lld,\"p50\":%lld,\"p90\":%lld,\"p99\":%lld,"
           "\"max\":%lld}",
           static_cast<long long>(p.count), static_cast<long long>(p.p50),
           static_cast<long long>(p.p90), static_cast<long long>(p.p99),
           static_cast<long long>(p.max));
  return buf;
}

}  // namespace

std::string FanoutResultJson(const FanoutOptions& o, const FanoutResult& r) {
  char buf[1024];
  snprintf(buf, sizeof buf,
           "{\"ok\":%s,\"watchers\":%d,\"pods\":%d,\"writes_per_second\":%g,"
           "\"open_seconds\":%.3f,\"writes\":%lld,\"write_seconds\":%.3f,"
           "\"expected\":%lld,\"delivered\":%lld,\"other_events\":%lld,"
           "\"error_events\":%lld,\"ended_streams\":%d,"
           "\"delivery_seconds\":%.3f,\"deliveries_per_second\":%.1f,",
           r.error.empty() ? "true" : "false", o.watchers, o.pods,
           o.writes_per_second, r.open_seconds,
           static_cast<long long>(r.writes), r.write_seconds,
           static_cast<long long>(r.expected),
           static_cast<long long>(r.delivered),
           static_cast<long long>(r.other_events),
           static_cast<long long>(r.error_events), r.ended_streams,
           r.delivery_seconds, r.deliveries_per_second);
  return std::string(buf) +
         "\"from_send_us\":" + PercentilesJson(r.from_send_us) +
         ",\"from_response_us\":" + PercentilesJson(r.from_response_us) +
         ",\"write_round_trip_us\":" + PercentilesJson(r.write_round_trip_us) +
         ",\"error\":" + JsonString(r.error) + "}";
}

}  // namespace kmock::bench
