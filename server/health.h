// Health and version endpoints: /healthz, /livez, /readyz (and their
// ?verbose forms and /<endpoint>/<check> paths) answer "ok" as text/plain;
// /version answers version.Info JSON built from the Kubernetes version we
// claim to be.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_SERVER_HEALTH_H_
#define KMOCK_SERVER_HEALTH_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace kmock::server {

// {"major":"1","minor":"33","gitVersion":"v1.33.0",...} for "1.33.0", in
// version.Info's field order.
nlohmann::ordered_json VersionInfo(const std::string& kubernetes_version);
// The /version body as kube-apiserver writes it: indented two spaces, in
// field order, no trailing newline.
std::string VersionBody(const std::string& kubernetes_version);

// Whether `path` is a health endpoint (/healthz, /livez, /readyz or a
// check below one of them).
bool IsHealthPath(std::string_view path);

// The text body for a health path; verbose lists each check.
std::string HealthBody(std::string_view path, bool verbose);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_HEALTH_H_
