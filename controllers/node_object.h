// The Node objects of the cluster spec, as a kubelet registers them and
// reports their status: labels (hostname, os, arch, region, zone, instance
// type, roles), taints, providerID aws:///<zone>/i-<17 hex>, podCIDR(s),
// capacity and allocatable, conditions, addresses, daemon endpoints and
// nodeInfo (machine, system and boot IDs from the Rng).
//
// Thread safety: pure functions (the Rng is itself thread-safe).
#ifndef KMOCK_CONTROLLERS_NODE_OBJECT_H_
#define KMOCK_CONTROLLERS_NODE_OBJECT_H_

#include <nlohmann/json.hpp>
#include <string>

#include "common/clock.h"
#include "common/rng.h"
#include "controllers/cluster.h"

namespace kmock::controllers {

// The Node without status, ready to create.
nlohmann::json BuildNode(const ClusterSpec& cluster, const NodeSpec& node,
                         Rng* rng);
// Its status as the kubelet first reports it. `version` is "v1.33.1".
nlohmann::json BuildNodeStatus(const NodeSpec& node, const std::string& version,
                               TimePoint now, Rng* rng);
// The four kubelet conditions (MemoryPressure, DiskPressure, PIDPressure,
// Ready), all healthy, with the given heartbeat and transition times.
nlohmann::json HealthyNodeConditions(const std::string& heartbeat,
                                     const std::string& transition);

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_NODE_OBJECT_H_
