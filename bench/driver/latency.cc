#include "driver/latency.h"

#include <algorithm>
#include <cstdio>

namespace kmock::bench {
namespace {

double Rank(const std::vector<int64_t>& sorted, double p) {
  size_t i = static_cast<size_t>(p * (sorted.size() - 1) + 0.5);
  return static_cast<double>(sorted[std::min(i, sorted.size() - 1)]);
}

}  // namespace

LatencySummary Summarize(std::vector<int64_t>& samples_us) {
  LatencySummary s;
  if (samples_us.empty()) return s;
  std::sort(samples_us.begin(), samples_us.end());
  double sum = 0;
  for (int64_t v : samples_us) sum += static_cast<double>(v);
  s.count = static_cast<int64_t>(samples_us.size());
  s.p50_us = Rank(samples_us, 0.50);
  s.p90_us = Rank(samples_us, 0.90);
  s.p99_us = Rank(samples_us, 0.99);
  s.mean_us = sum / static_cast<double>(samples_us.size());
  s.min_us = static_cast<double>(samples_us.front());
  s.max_us = static_cast<double>(samples_us.back());
  return s;
}

std::string LatencyJson(const LatencySummary& s) {
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "{\"count\": %lld, \"p50_us\": %.0f, \"p90_us\": %.0f, "
                "\"p99_us\": %.0f, \"mean_us\": %.1f, \"min_us\": %.0f, "
                "\"max_us\": %.0f}",
                static_cast<long long>(s.count), s.p50_us, s.p90_us, s.p99_us,
                s.mean_us, s.min_us, s.max_us);
  return buf;
}

}  // namespace kmock::bench
