// The watch fan-out benchmark: `watchers` clients watch the pods of one
// namespace while one writer changes those pods at a fixed rate; every event
// each watcher reads is matched by resourceVersion with the write that
// committed it. Single-threaded API (it starts and joins its own threads).
#ifndef KMOCK_BENCH_FANOUT_FANOUT_RUN_H_
#define KMOCK_BENCH_FANOUT_FANOUT_RUN_H_

#include <cstdint>
#include <string>

#include "fanout/api_client.h"

namespace kmock::bench {

struct FanoutOptions {
  ApiEndpoint endpoint;
  std::string ns = "fanout";
  int watchers = 100;
  int reader_threads = 2;
  int pods = 10;  // created first; the writer patches them in turn
  double writes_per_second = 50;
  double seconds = 5;  // of writing
};

struct Percentiles {
  int64_t count = 0;
  int64_t p50 = 0, p90 = 0, p99 = 0, max = 0;  // microseconds
};

struct FanoutResult {
  std::string error;        // empty when the run completed
  double open_seconds = 0;  // to open every watch
  int64_t writes = 0;
  double write_seconds = 0;  // first write sent to last answered
  int64_t expected = 0;      // writes x watchers
  int64_t delivered = 0;     // events matching a write
  int64_t other_events = 0;  // events of other writers (kubelets, ...)
  int64_t error_events = 0;
  int ended_streams = 0;        // watches the server closed early
  double delivery_seconds = 0;  // first write sent to last matched delivery
  double deliveries_per_second = 0;
  // From the write request's send to each delivery: an upper bound of
  // commit-to-client, since the commit happens inside the round trip.
  Percentiles from_send_us;
  // From the write's response to each delivery (negative values, deliveries
  // before the writer had its answer, count as 0): a lower bound.
  Percentiles from_response_us;
  Percentiles write_round_trip_us;
};

FanoutResult RunFanout(const FanoutOptions& options);

// One line of JSON.
std::string FanoutResultJson(const FanoutOptions& options,
                             const FanoutResult& result);

}  // namespace kmock::bench

#endif  // KMOCK_BENCH_FANOUT_FANOUT_RUN_H_
