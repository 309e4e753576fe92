// A kubelet's container probes, run against the containers' simulations:
// httpGet asks the program's server on the port (sim/servers.h; the
// request shows in the server's access log as kube-probe's), tcpSocket
// checks that the program listens, exec runs the command in the container
// and grpc counts as a listening port. Each probe runs on its schedule
// (initialDelaySeconds, then every periodSeconds) with its thresholds: a
// startup probe holds the others back until it passes; readiness decides
// the container's ready flag (and so the pod's Ready condition and its
// Service endpoints); liveness and startup failures past the threshold
// kill the container, which then restarts under the pod's policy. Each
// failure is an Unhealthy event in the kubelet's words.
//
// Containers of images without a profile are not probed: nothing is
// known of what they serve, so they count as healthy (charts' own images
// run as they would).
//
// Thread safety: pure functions of their arguments (the containers lock
// themselves).
#ifndef KMOCK_CONTROLLERS_LIFECYCLE_PROBES_H_
#define KMOCK_CONTROLLERS_LIFECYCLE_PROBES_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "controllers/lifecycle/engine.h"
#include "controllers/lifecycle/runtime.h"

namespace kmock::controllers::lifecycle {

// Whether a container of this spec waits for a probe to be ready.
bool WaitsForProbe(const nlohmann::json& container_spec);

struct ProbeResult {
  bool ok = false;
  std::string output;  // why it failed, as the kubelet reports it
};

// One run of `probe` (a Probe object) against the container.
ProbeResult RunProbe(const nlohmann::json& probe,
                     const nlohmann::json& container_spec,
                     const std::shared_ptr<sim::Container>& container,
                     const PodRuntime& rt, TimePoint now);

// Runs the probes due at `now` for the pod's running containers. Returns
// whether a container's status changed (ready, or killed); the events go
// to *events and the next probe's time to *wake (when earlier).
bool RunDueProbes(const nlohmann::json& pod, PodRuntime* rt, TimePoint now,
                  std::vector<EventSpec>* events,
                  std::optional<TimePoint>* wake);

}  // namespace kmock::controllers::lifecycle

#endif  // KMOCK_CONTROLLERS_LIFECYCLE_PROBES_H_
