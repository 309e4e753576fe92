// Latency samples and their summary: percentiles, mean and maximum of a set
// of per-request durations in microseconds (signed, so a difference of two
// clocks, which may be negative, summarizes too). Plain values; not
// synchronized: give each thread its own samples and merge them after.
#ifndef KMOCK_BENCH_DRIVER_LATENCY_H_
#define KMOCK_BENCH_DRIVER_LATENCY_H_

#include <cstdint>
#include <string>
#include <vector>

namespace kmock::bench {

struct LatencySummary {
  int64_t count = 0;
  double p50_us = 0;
  double p90_us = 0;
  double p99_us = 0;
  double mean_us = 0;
  double min_us = 0;
  double max_us = 0;
};

// Nearest-rank percentiles of samples (sorted in place). All zero when empty.
LatencySummary Summarize(std::vector<int64_t>& samples_us);

// {"count": N, "p50_us": ..., ...}: one JSON object.
std::string LatencyJson(const LatencySummary& s);

}  // namespace kmock::bench

#endif  // KMOCK_BENCH_DRIVER_LATENCY_H_
