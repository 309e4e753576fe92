// What objects count against a ResourceQuota, as kube-apiserver's quota
// evaluators count them: every object one of "count/<resource>[.<group>]";
// pods (not yet finished) "pods" and their containers' requests and limits
// ("requests.cpu" or "cpu", "requests.memory" or "memory", "limits.cpu",
// "limits.memory"); Services "services", "services.nodeports",
// "services.loadbalancers"; claims "persistentvolumeclaims" and
// "requests.storage"; and "configmaps", "secrets", "replicationcontrollers",
// "resourcequotas". Amounts are in thousandths of a unit.
//
// Thread safety: pure functions.
#ifndef KMOCK_REGISTRY_ADMISSION_QUOTA_USAGE_H_
#define KMOCK_REGISTRY_ADMISSION_QUOTA_USAGE_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "api/resource.h"

namespace kmock::registry {

// Quota resource name -> thousandths of a unit.
using QuotaUsage = std::map<std::string, int64_t>;

// What one object of `res` counts.
QuotaUsage UsageOf(const api::ResourceInfo& res, const nlohmann::json& obj);

// For a pod under a quota with compute resources in `hard`: what its
// containers fail to specify, as kube-apiserver words it
// ("requests.cpu for: web,sidecar; limits.memory for: web"), or "".
std::string MissingComputeResources(const nlohmann::json& pod,
                                    const nlohmann::json& hard);

// The resource (in `catalog`) whose objects a quota resource name counts,
// or null for a name this server does not count.
const api::ResourceInfo* CountedResource(const api::Catalog& catalog,
                                         const std::string& quota_name);

// A quantity in thousandths, or nullopt when malformed.
std::optional<int64_t> QuantityMilli(const nlohmann::json& q);
// Thousandths as a quantity string, in the form kube-apiserver writes used
// amounts: "500m", "2", "128Mi", "1Gi".
std::string FormatQuantity(const std::string& quota_name, int64_t milli);

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_ADMISSION_QUOTA_USAGE_H_
