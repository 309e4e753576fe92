#include "fanout/pod_fill.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

namespace kmock::bench {

std::string FillNamespace(const PodFillOptions& o, int64_t i) {
  return o.ns_prefix +
         std::to_string(i / std::max<int64_t>(1, o.pods_per_namespace));
}

std::string FillPodJson(const PodFillOptions& o, int64_t i) {
  return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p-" +
         std::to_string(i) + "\",\"namespace\":\"" + FillNamespace(o, i) +
         "\",\"labels\":{\"app\":\"a-" +
         std::to_string(i % std::max(1, o.label_values)) +
         "\",\"bench\":\"scale\"}},\"spec\":{\"nodeName\":\"" + o.node_prefix +
         std::to_string(i % std::max(1, o.nodes)) +
         "\",\"containers\":[{\"name\":\"web\",\"image\":\"nginx:1.25\","
         "\"ports\":[{\"containerPort\":80}]}]}}";
}

PodFillResult RunPodFill(const PodFillOptions& o) {
  PodFillResult result;
  const httplib::Headers accept = {{"Accept", "application/json"}};
  {
    auto cli = MakeApiClient(o.endpoint);
    int64_t last = o.first + o.count - 1;
    for (int64_t n = o.first / o.pods_per_namespace;
         o.count > 0 && n <= last / o.pods_per_namespace; ++n) {
      std::string err = EnsureNamespace(*cli, o.ns_prefix + std::to_string(n));
      if (!err.empty()) {
        result.errors = 1;
        result.first_error = err;
        return result;
      }
    }
  }
  std::atomic<int64_t> next{o.first};
  std::atomic<int64_t> created{0}, conflicts{0}, errors{0};
  std::atomic<bool> deadline_hit{false};
  std::mutex mu;
  const int64_t start = NowNs();
  const int64_t deadline =
      start + static_cast<int64_t>(o.deadline_seconds * 1e9);
  const int64_t end = o.first + o.count;
  std::atomic<bool> done{false};
  std::thread progress([&] {
    int64_t last_report = start;
    while (!done) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      int64_t now = NowNs();
      if (now - last_report >= int64_t{5} * 1000000000) {
        last_report = now;
        fprintf(stderr, "fill: %lld pods in %.0f s (%.0f/s)\n",
                static_cast<long long>(created.load()), (now - start) / 1e9,
                created.load() / ((now - start) / 1e9));
      }
    }
  });
  std::vector<std::thread> workers;
  for (int c = 0; c < std::max(1, o.connections); ++c) {
    workers.emplace_back([&] {
      auto cli = MakeApiClient(o.endpoint);
      for (;;) {
        if (errors.load() > 100) return;
        if (NowNs() > deadline) {
          deadline_hit = true;
          return;
        }
        int64_t i = next.fetch_add(1);
        if (i >= end) return;
        std::string path =
            "/api/v1/namespaces/" + FillNamespace(o, i) + "/pods";
        auto res =
            cli->Post(path, accept, FillPodJson(o, i), "application/json");
        if (res && res->status == 201) {
          created.fetch_add(1);
        } else if (res && res->status == 409) {
          conflicts.fetch_add(1);
        } else {
          errors.fetch_add(1);
          std::lock_guard<std::mutex> lock(mu);
          if (result.first_error.empty()) {
            result.first_error = res ? std::to_string(res->status) + " " +
                                           res->body.substr(0, 300)
                                     : to_string(res.error());
          }
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  done = true;
  progress.join();
  result.seconds = (NowNs() - start) / 1e9;
  result.created = created;
  result.conflicts = conflicts;
  result.errors += errors;
  result.deadline_hit = deadline_hit;
  return result;
}

std::string PodFillResultJson(const PodFillOptions& o, const PodFillResult& r) {
  char buf[512];
  snprintf(buf, sizeof buf,
           "{\"ok\":%s,\"requested\":%lld,\"created\":%lld,\"conflicts\":%lld,"
           "\"errors\":%lld,\"seconds\":%.3f,\"pods_per_second\":%.1f,"
           "\"deadline_hit\":%s,\"connections\":%d,",
           r.errors == 0 ? "true" : "false", static_cast<long long>(o.count),
           static_cast<long long>(r.created),
           static_cast<long long>(r.conflicts),
           static_cast<long long>(r.errors), r.seconds,
           r.seconds > 0 ? r.created / r.seconds : 0.0,
           r.deadline_hit ? "true" : "false", o.connections);
  return std::string(buf) + "\"first_error\":" + JsonString(r.first_error) +
         "}";
}

}  // namespace kmock::bench
