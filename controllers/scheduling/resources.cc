#include "controllers/scheduling/resources.h"

#include <algorithm>

#include "common/json_view.h"
#include "controllers/quantity.h"

namespace kmock::controllers::scheduling {

namespace {

using nlohmann::json;

constexpr int64_t kDefaultMilliCpuForScoring = 100;
constexpr int64_t kDefaultMemoryForScoring = 200LL * 1024 * 1024;

int64_t Milli(const json& q) {
  auto r = ParseMilliValue(q);
  return r.ok() ? *r : 0;
}
int64_t Value(const json& q) {
  auto r = ParseValue(q);
  return r.ok() ? *r : 0;
}

// The request of one resource in a container: requests, else limits.
// Points into c; null if neither is set.
const json* Requested(const json& c, const char* name) {
  auto res = c.find("resources");
  if (res == c.end() || !res->is_object()) return nullptr;
  for (const char* part : {"requests", "limits"}) {
    auto it = res->find(part);
    if (it != res->end() && it->is_object()) {
      auto v = it->find(name);
      if (v != it->end()) return &*v;
    }
  }
  return nullptr;
}

Resources ContainerRequests(const json& c, bool non_zero) {
  Resources r;
  if (const json* cpu = Requested(c, "cpu")) {
    r.milli_cpu = Milli(*cpu);
  } else if (non_zero) {
    r.milli_cpu = kDefaultMilliCpuForScoring;
  }
  if (const json* mem = Requested(c, "memory")) {
    r.memory = Value(*mem);
  } else if (non_zero) {
    r.memory = kDefaultMemoryForScoring;
  }
  return r;
}

Resources Requests(const json& pod, bool non_zero) {
  const json& spec = ObjectAt(pod, "spec");
  Resources sum;
  for (const auto& c : ArrayAt(spec, "containers")) {
    sum += ContainerRequests(c, non_zero);
  }
  for (const auto& c : ArrayAt(spec, "initContainers")) {
    Resources r = ContainerRequests(c, non_zero);
    // A restartable (sidecar) init container runs beside the others.
    if (c.value("restartPolicy", "") == "Always") {
      sum += r;
      continue;
    }
    sum.milli_cpu = std::max(sum.milli_cpu, r.milli_cpu);
    sum.memory = std::max(sum.memory, r.memory);
  }
  const json& overhead = ObjectAt(spec, "overhead");
  if (overhead.contains("cpu")) sum.milli_cpu += Milli(overhead["cpu"]);
  if (overhead.contains("memory")) sum.memory += Value(overhead["memory"]);
  sum.pods = 1;
  return sum;
}

}  // namespace

Resources PodRequests(const json& pod) { return Requests(pod, false); }

Resources PodRequestsForScoring(const json& pod) { return Requests(pod, true); }

Resources NodeAllocatable(const json& node) {
  const json& status = ObjectAt(node, "status");
  json alloc = ObjectAt(status, "allocatable");
  if (alloc.empty()) alloc = ObjectAt(status, "capacity");
  Resources r;
  if (alloc.contains("cpu")) r.milli_cpu = Milli(alloc["cpu"]);
  if (alloc.contains("memory")) r.memory = Value(alloc["memory"]);
  if (alloc.contains("pods")) r.pods = Value(alloc["pods"]);
  return r;
}

}  // namespace kmock::controllers::scheduling
