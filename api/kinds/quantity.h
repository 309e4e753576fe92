// Parsing of Kubernetes resource quantities ("500m", "1Gi", "2e3") to a
// number, for comparisons (requests <= limits, QoS class).
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_API_KINDS_QUANTITY_H_
#define KMOCK_API_KINDS_QUANTITY_H_

#include <nlohmann/json.hpp>
#include <string>

namespace kmock::api::kinds {

// Parses a quantity string (or a JSON number). Returns false if malformed.
bool ParseQuantity(const nlohmann::json& value, long double* out);

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_QUANTITY_H_
