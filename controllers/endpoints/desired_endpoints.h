// What a Service's Endpoints and EndpointSlices should hold, computed from
// the Service, the pods its selector picks and their nodes, as
// kube-controller-manager's endpoint and endpointslice controllers compute
// them (pure functions; the controller compares and writes).
//
// Which pods count: those with a pod IP that are not terminal (by their
// restartPolicy). Endpoints leave out pods being deleted and list the
// others as ready or not ready (every one ready with
// publishNotReadyAddresses); EndpointSlices keep terminating pods, with
// ready/serving/terminating conditions. A port whose targetPort names a
// container port the pod lacks is left out for that pod. Addresses are
// ordered by IP as text, as upstream's repacking does; slices hold at most
// `max_per_slice` endpoints each, one group of slices per distinct port
// set.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_CONTROLLERS_ENDPOINTS_DESIRED_ENDPOINTS_H_
#define KMOCK_CONTROLLERS_ENDPOINTS_DESIRED_ENDPOINTS_H_

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kmock::controllers::endpoints {

using nlohmann::json;

inline constexpr char kServiceNameLabel[] = "kubernetes.io/service-name";
inline constexpr char kManagedByLabel[] =
    "endpointslice.kubernetes.io/managed-by";
inline constexpr char kManagedByValue[] = "endpointslice-controller.k8s.io";
inline constexpr char kHeadlessLabel[] = "service.kubernetes.io/headless";
inline constexpr char kTriggerTimeAnnotation[] =
    "endpoints.kubernetes.io/last-change-trigger-time";

// The node's zone (topology.kubernetes.io/zone), "" when unknown.
using ZoneOf = std::function<std::string(const std::string& node_name)>;

// True when the Service has a non-empty selector and is not ExternalName:
// the controllers manage its endpoints.
bool ServiceHasSelector(const json& service);
// Whether the pod's labels satisfy the Service's selector map.
bool SelectorMatches(const json& service, const json& pod);

// The `subsets` of the Service's Endpoints (an empty array when none).
json EndpointSubsets(const json& service,
                     const std::vector<std::shared_ptr<const json>>& pods);
// The labels Endpoints and slices carry: the Service's, plus the headless
// label when clusterIP is None.
json EndpointsLabels(const json& service);

// One slice's content: `ports` (null when the Service selects no pods) and
// `endpoints` (an array).
struct SliceContent {
  json ports;
  json endpoints;
};
// The slices the Service should have (at least one: an empty placeholder
// when no pod is selected).
std::vector<SliceContent> DesiredSlices(
    const json& service, const std::vector<std::shared_ptr<const json>>& pods,
    const ZoneOf& zone_of, size_t max_per_slice = 100);

}  // namespace kmock::controllers::endpoints

#endif  // KMOCK_CONTROLLERS_ENDPOINTS_DESIRED_ENDPOINTS_H_
