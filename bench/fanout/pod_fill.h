// Bulk pod creation for the scale benchmark: POSTs pods with spec.nodeName
// already set (the scheduler is bypassed; the fake kubelets still run them),
// from several keep-alive connections, each on its own thread, spread over
// namespaces of a fixed size and over the nodes round-robin. RunPodFill is
// blocking and thread-safe; it prints progress lines to stderr.
#ifndef KMOCK_BENCH_FANOUT_POD_FILL_H_
#define KMOCK_BENCH_FANOUT_POD_FILL_H_

#include <cstdint>
#include <string>

#include "fanout/api_client.h"

namespace kmock::bench {

struct PodFillOptions {
  ApiEndpoint endpoint;
  int64_t first = 0;  // pod indexes [first, first + count)
  int64_t count = 1000;
  int nodes = 1;  // node-0 ... node-(nodes-1)
  std::string node_prefix = "node-";
  int64_t pods_per_namespace = 3000;  // pod i lives in <ns_prefix><i / this>
  std::string ns_prefix = "scale-";
  int label_values = 10;  // pod i carries app=a-<i % this>
  int connections = 4;
  double deadline_seconds = 600;  // stop creating after this long
};

struct PodFillResult {
  int64_t created = 0;
  int64_t conflicts = 0;  // 409: already there from an earlier run
  int64_t errors = 0;
  double seconds = 0;
  bool deadline_hit = false;
  std::string first_error;
};

PodFillResult RunPodFill(const PodFillOptions& options);
std::string PodFillResultJson(const PodFillOptions& options,
                              const PodFillResult& result);

// The namespace and name of pod i, and its JSON.
std::string FillNamespace(const PodFillOptions& options, int64_t i);
std::string FillPodJson(const PodFillOptions& options, int64_t i);

}  // namespace kmock::bench

#endif  // KMOCK_BENCH_FANOUT_POD_FILL_H_
