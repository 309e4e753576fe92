// Timed LISTs for the scale benchmark: one GET of a collection, or the whole
// collection in pages of `limit` following the continue tokens, repeated;
// reports wall time per complete listing, bytes and items. Blocking; safe to
// call from any thread.
#ifndef KMOCK_BENCH_FANOUT_LIST_TIMING_H_
#define KMOCK_BENCH_FANOUT_LIST_TIMING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "fanout/api_client.h"

namespace kmock::bench {

struct ListOptions {
  ApiEndpoint endpoint;
  std::string
      path;  // e.g. /api/v1/pods or /api/v1/namespaces/x/pods?labelSelector=...
  int64_t limit = 0;  // page size; 0: one response
  int runs = 3;
};

struct ListResult {
  std::vector<double> seconds;  // per run
  int64_t pages = 0;            // of the last run
  int64_t items = 0;
  int64_t bytes = 0;
  std::string error;
};

ListResult RunList(const ListOptions& options);
std::string ListResultJson(const ListOptions& options, const ListResult& r);

}  // namespace kmock::bench

#endif  // KMOCK_BENCH_FANOUT_LIST_TIMING_H_
