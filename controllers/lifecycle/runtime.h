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
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "sim/container.h"

namespace kmock::controllers::lifecycle {

enum class Step {
  kWaiting,
  kPulling,
  kPulled,
  kCreated,
  kRunning,
  kTerminated,
  kPullFailed,   // ErrImagePull, InvalidImageName, ErrImageNeverPull
  kPullBackOff,  // ImagePullBackOff: waits retryInMs to pull again
  kBackOff,      // CrashLoopBackOff: waits retryInMs to restart
};

// A container instance that ended, as lastState.terminated shows it.
struct EndedInstance {
  int exit_code = 0;
  std::string reason;  // Completed, Error, StartError, OOMKilled
  std::string message;
  TimePoint started_at{};
  TimePoint finished_at{};
  std::string container_id;
};

const char* StepName(Step s);
bool ParseStep(const std::string& name, Step* out);

// One probe's schedule and its consecutive results.
struct ProbeCounters {
  TimePoint next{};  // zero: not scheduled yet
  int successes = 0, failures = 0;
};

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
  std::string reason;   // terminated reason
  std::string message;  // terminated message (StartError's)
  bool ready = false;

  // Restarts: the policy that applies to this container (the pod's; an
  // init container restarts only on failure, a sidecar always), how many
  // times it was restarted, and the instance before.
  std::string restart_policy = "Always";
  bool sidecar = false;  // an init container with restartPolicy Always
  bool stopped = false;  // stopped by the kubelet (the pod is deleted)
  int restart_count = 0;
  std::optional<EndedInstance> last;
  // The waiting reason and message of kPullFailed, kPullBackOff, kBackOff.
  std::string waiting_reason, waiting_message;
  // The pull's outcome (sim::ImageCatalog::CheckPull), known in advance:
  // pull_error empty = the pull succeeds. pull_retry: the failure is the
  // registry's (retried with back-off), not a bad name or policy.
  std::string pull_reason;  // ErrImagePull, InvalidImageName
  std::string pull_error;
  // A program that cannot start (set by the kubelet before kStartContainer).
  std::string start_error;
  // Why its configuration cannot be made (ContainerConfigError), set by the
  // kubelet before each kCreateContainer: it waits, retried.
  std::string config_error;
  // The kubelet's back-off per container: crash restarts and image pulls
  // (10 s doubling to 5 min; forgotten after 10 min without failures).
  int64_t backoff_ms = 0;
  TimePoint backoff_updated{};
  int64_t pull_backoff_ms = 0;
  TimePoint pull_backoff_updated{};
  // The wait of a pending kPullBackOff or kBackOff step.
  int64_t retry_in_ms = 0;

  // Probes (probes.h): whether readiness waits for one (a readiness or
  // startup probe on a profiled image), and the counters of the running
  // instance (not in the JSON form: a restarted kubemock probes afresh).
  bool probed = false;
  ProbeCounters liveness_probe, readiness_probe, startup_probe;
  bool probes_started = false;  // the startup probe has passed (or none)
  // The running instance was ended by the OOM killer (its memory limit is
  // below what its program needs).
  bool oom_killed = false;

  // The running instance and the one before (kubectl logs --previous);
  // not part of the JSON form.
  std::shared_ptr<sim::Container> sim, previous;

  // Whether an ended container is started again.
  bool WillRestart() const;
};

// The kubelet's container back-off (flowcontrol.Backoff with 10 s, 5 min).
constexpr int64_t kBackoffInitialMs = 10000;
constexpr int64_t kBackoffMaxMs = 300000;
// A pod whose sync failed (a container's configuration cannot be made) is
// synced again after the pod worker's back-off period.
constexpr int64_t kConfigRetryMs = 10000;

struct PodRuntime {
  bool sandbox = false;
  std::string host_ip;
  std::string pod_ip;
  TimePoint start_time{};
  bool ready = false;   // the ready stage has run
  bool killed = false;  // containers stopped after a delete
  // "name_namespace(uid)", as the kubelet names the pod in messages.
  std::string pod_ref;
  // The pod's emptyDir volumes, shared by its containers (not in JSON).
  std::map<std::string, std::shared_ptr<sim::Filesystem>> empty_dirs;
  // Its configMap, secret, downwardAPI and projected volumes, each a
  // read-only directory the kubelet writes (not in JSON).
  std::map<std::string, std::shared_ptr<sim::Filesystem>> file_volumes;
  // The volume manager's current wait before it tries a volume again.
  int64_t mount_backoff_ms = 0;
  std::vector<ContainerRuntime> containers;  // init containers first, in order

  // Index of the container whose turn it is (to start, or to restart),
  // or -1 when every init container has completed and every app
  // container runs or has ended for good, or an init container failed
  // for good.
  int CurrentContainer() const;
  // Whether no container will run again: the pod has succeeded or failed.
  bool Finished() const;
  // Whether it finished with every container ending in success.
  bool Succeeded() const;
};

nlohmann::json ToJson(const PodRuntime& rt);
Result<PodRuntime> FromJson(const nlohmann::json& j);

}  // namespace kmock::controllers::lifecycle

#endif  // KMOCK_CONTROLLERS_LIFECYCLE_RUNTIME_H_
