// What a fake kubelet remembers about one pod it runs: the sandbox, its
// address, and each container's progress and identity (container ID, image
// digest, process number). The pod's status is rendered from this record, so
// the kubelet's memory, not a stale cached object, is the source of truth.
//
// ToJson/FromJson give the golden tests a readable form.
//
// Thread safety: plain values.
#ifndef KMOCK_CONTROLLERS_LIFECYCLE_RUNTIME_H_
#define KMOCK_CONTROLLERS_LIFECYCLE_RUNTIME_H_

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"

namespace kmock::controllers::lifecycle {

enum class Step {
  kWaiting,
  kPulling,
  kPulled,
  kCreated,
  kRunning,
  kTerminated
};

const char* StepName(Step s);
bool ParseStep(const std::string& name, Step* out);

struct ContainerRuntime {
  std::string name;
  bool init = false;
  std::string image;  // as the spec writes it: "nginx"
  std::string
      image_ref;  // as containerd reports it: "docker.io/library/nginx:latest"
  std::string image_id;        // "docker.io/library/nginx@sha256:<64 hex>"
  int64_t image_size = 0;      // bytes
  bool image_present = false;  // already on the node before this pod
  std::string pull_policy;     // Always, IfNotPresent, Never
  int64_t pull_ms = 0;         // what the Pulled message reports
  std::string container_id;    // "containerd://<64 hex>"
  int64_t pid = 0;             // process number on the node
  Step step = Step::kWaiting;
  TimePoint started_at{};
  TimePoint finished_at{};
  int exit_code = 0;
  std::string reason;  // terminated reason
  bool ready = false;
};

struct PodRuntime {
  bool sandbox = false;
  std::string host_ip;
  std::string pod_ip;
  TimePoint start_time{};
  bool ready = false;   // the ready stage has run
  bool killed = false;  // containers stopped after a delete
  std::vector<ContainerRuntime> containers;  // init containers first, in order

  // Index of the container whose turn it is, or -1 when every init
  // container has completed and every app container runs.
  int CurrentContainer() const;
};

nlohmann::json ToJson(const PodRuntime& rt);
Result<PodRuntime> FromJson(const nlohmann::json& j);

}  // namespace kmock::controllers::lifecycle

#endif  // KMOCK_CONTROLLERS_LIFECYCLE_RUNTIME_H_
