// HorizontalPodAutoscaler across versions: one stored object (the
// autoscaling/v2 form, the storage version) serves autoscaling/v1 too.
// v1 knows only a CPU utilization target; converting v2 to v1 keeps the
// first CPU utilization metric, and v1 to v2 makes it a Resource metric
// (80% when v1 names no target: the default of the stored v2 form).
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_API_KINDS_HPA_H_
#define KMOCK_API_KINDS_HPA_H_

#include <nlohmann/json.hpp>

namespace kmock::api::kinds {

using nlohmann::json;

json HpaV2ToV1(const json& v2);
json HpaV1ToV2(const json& v1);

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_HPA_H_
