// Small helpers the kind files share: reading nested JSON without throwing,
// and the AGE-style cells of kube-apiserver's printers.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_API_KINDS_UTIL_H_
#define KMOCK_API_KINDS_UTIL_H_

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/clock.h"

namespace kmock::api::kinds {

using nlohmann::json;

// The value at a path of object keys, or nullptr if any step is missing or
// not an object.
const json* Find(const json& obj, std::initializer_list<const char*> path);
// The string at a path, or "" when absent or not a string.
std::string Str(const json& obj, std::initializer_list<const char*> path);
// The integer at a path, or `def`.
int64_t Int(const json& obj, std::initializer_list<const char*> path,
            int64_t def = 0);
// The bool at a path, or false.
bool Bool(const json& obj, std::initializer_list<const char*> path);
// The array at a path, or an empty array.
const json& Array(const json& obj, std::initializer_list<const char*> path);

// "5m", or "<unknown>" when the timestamp is absent or unparsable: the
// printers' translateTimestampSince.
std::string Since(const std::string& timestamp, TimePoint now);

// The items joined with sep (Go's strings.Join).
std::string JoinStrings(const std::vector<std::string>& items,
                        const char* sep = ",");

// The address of each status.loadBalancer.ingress entry of obj (a Service
// or an Ingress): its ip, else its hostname; entries with neither are
// skipped.
std::vector<std::string> LoadBalancerAddresses(const json& obj);

// Ensures obj[key] is an object and returns it.
json& ObjectAt(json& obj, const char* key);

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_UTIL_H_
