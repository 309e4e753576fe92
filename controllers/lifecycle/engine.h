// The pure half of a fake kubelet: applying a stage's action to the
// kubelet's record of a pod (which events it emits), and rendering the
// pod's status from that record, as a 1.33 kubelet reports it.
//
// Thread safety: pure functions.
#ifndef KMOCK_CONTROLLERS_LIFECYCLE_ENGINE_H_
#define KMOCK_CONTROLLERS_LIFECYCLE_ENGINE_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/clock.h"
#include "controllers/lifecycle/runtime.h"
#include "controllers/lifecycle/stage.h"

namespace kmock::controllers::lifecycle {

// An event the kubelet records about the pod.
struct EventSpec {
  std::string type;    // Normal, Warning
  std::string reason;  // Pulling, Pulled, Created, Started, Killing
  std::string message;
  std::string field_path;  // "spec.containers{c1}"
  bool operator==(const EventSpec&) const = default;
};

// An event about container c ("spec.containers{c1}").
EventSpec Normal(const ContainerRuntime& c, std::string reason,
                 std::string message);
EventSpec Warning(const ContainerRuntime& c, std::string reason,
                  std::string message);

// Moves rt on by one action at `now`; returns the events to record. An
// action that does not apply (no current container) changes nothing.
std::vector<EventSpec> Apply(Action action, PodRuntime* rt, TimePoint now);

// The pod's status as the kubelet would write it, starting from the pod's
// current status (so fields the kubelet does not own, such as qosClass and
// the PodScheduled condition, stay). Condition transition times are kept
// when a condition's status does not change.
nlohmann::json RenderStatus(const nlohmann::json& pod, const PodRuntime& rt,
                            TimePoint now);

// Go's time.Duration.String() of a whole number of milliseconds:
// 1200 -> "1.2s", 512 -> "512ms", 61000 -> "1m1s".
std::string GoDurationMs(int64_t ms);

}  // namespace kmock::controllers::lifecycle

#endif  // KMOCK_CONTROLLERS_LIFECYCLE_ENGINE_H_
