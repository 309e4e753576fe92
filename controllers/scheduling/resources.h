// What a pod asks for and what a node offers, in the units kube-scheduler
// compares: CPU millicores, memory bytes, a pod count.
//
// Thread safety: pure functions over JSON values.
#ifndef KMOCK_CONTROLLERS_SCHEDULING_RESOURCES_H_
#define KMOCK_CONTROLLERS_SCHEDULING_RESOURCES_H_

#include <cstdint>
#include <nlohmann/json.hpp>

namespace kmock::controllers::scheduling {

struct Resources {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t pods = 0;

  Resources& operator+=(const Resources& o) {
    milli_cpu += o.milli_cpu;
    memory += o.memory;
    pods += o.pods;
    return *this;
  }
  Resources& operator-=(const Resources& o) {
    milli_cpu -= o.milli_cpu;
    memory -= o.memory;
    pods -= o.pods;
    return *this;
  }
  bool operator==(const Resources&) const = default;
};

// The pod's effective request: the sum over containers, at least the
// largest init container's, plus spec.overhead; pods = 1. A container that
// sets a limit but no request requests its limit (as API defaulting does).
// Unparseable quantities count as zero.
Resources PodRequests(const nlohmann::json& pod);

// As PodRequests, but a container without a CPU or memory request counts
// 100m CPU and 200Mi memory: the figures kube-scheduler scores with, so
// that best-effort pods still spread.
Resources PodRequestsForScoring(const nlohmann::json& pod);

// status.allocatable (falling back to status.capacity).
Resources NodeAllocatable(const nlohmann::json& node);

}  // namespace kmock::controllers::scheduling

#endif  // KMOCK_CONTROLLERS_SCHEDULING_RESOURCES_H_
