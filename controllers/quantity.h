// Kubernetes resource quantities ("100m", "2", "1.5", "128Mi", "1G", "1e3")
// turned into integers for arithmetic: CPU in millicores, everything else in
// whole units (bytes, pods), rounded up as kube-scheduler rounds.
//
// Thread safety: pure functions.
#ifndef KMOCK_CONTROLLERS_QUANTITY_H_
#define KMOCK_CONTROLLERS_QUANTITY_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "common/status.h"

namespace kmock::controllers {

// The quantity's value times 1000, rounded up ("100m" -> 100, "2" -> 2000).
Result<int64_t> ParseMilliValue(const nlohmann::json& q);
// The quantity's value, rounded up ("128Mi" -> 134217728, "100m" -> 1).
Result<int64_t> ParseValue(const nlohmann::json& q);

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_QUANTITY_H_
