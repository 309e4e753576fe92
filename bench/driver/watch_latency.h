// Watch latency: one client holds a watch on an object while writers update
// that object, and each update's event is matched to its write by the
// resourceVersion in the write's response. Per update it records when the
// write was sent, when its response came back (the write round trip, the
// baseline) and when its event reached the watching client. Updates go one by
// one (the next after the previous event arrived) or as a burst from several
// connections. RunWatchLatency may be called from any thread; it runs its
// own watch and writer threads and joins them before returning.
#ifndef KMOCK_BENCH_DRIVER_WATCH_LATENCY_H_
#define KMOCK_BENCH_DRIVER_WATCH_LATENCY_H_

#include <httplib.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "driver/https_load.h"
#include "driver/latency.h"

namespace kmock::bench {

struct WatchLatencyOptions {
  Endpoint endpoint;
  // A watch URL without resourceVersion, e.g.
  // /api/v1/namespaces/default/pods?watch=1&fieldSelector=metadata.name%3Dp;
  // "&resourceVersion=RV&timeoutSeconds=T" is appended.
  std::string watch_path;
  std::string write_method = "PATCH";
  std::string write_path;
  std::string content_type = "application/merge-patch+json";
  std::string body_template;  // "@N@" becomes a new number per update
  int64_t first_n = 1;
  int updates = 1000;
  int connections = 1;  // writer connections
  // true: each writer waits for its update's event before the next update.
  bool wait_for_event = true;
  double timeout_seconds = 30;  // for the whole run
};

struct WatchLatencyResult {
  bool ok = false;
  std::string error;
  int64_t updates = 0;            // timed writes that succeeded
  int64_t events_matched = 0;     // of those, seen on the watch
  int64_t events_before_ack = 0;  // event arrived before the write response
  int64_t other_events = 0;       // events of writes not ours (a kubelet's)
  double seconds = 0;             // timed phase, first send to last event
  double updates_per_second = 0;
  LatencySummary write_rtt;      // send to response
  LatencySummary send_to_event;  // send to event
  LatencySummary ack_to_event;   // response to event; negative when earlier
  int64_t last_n = 0;
};

// The first "resourceVersion":"DIGITS" in a JSON text (an object's own
// metadata.resourceVersion in what kube-apiserver sends), or nullopt.
std::optional<int64_t> FindResourceVersion(std::string_view json);

WatchLatencyResult RunWatchLatency(const WatchLatencyOptions& options);

}  // namespace kmock::bench

#endif  // KMOCK_BENCH_DRIVER_WATCH_LATENCY_H_
