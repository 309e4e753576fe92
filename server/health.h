// Health and version endpoints: /healthz, /livez, /readyz (and their
// ?verbose forms and /<endpoint>/<check> paths) answer as kube-apiserver's
// do, as text/plain; /version answers version.Info JSON built from the
// Kubernetes version we claim to be.
//
// The checks are ping, log and etcd (the store's Health: damaged data, or
// writes refused after a failed write). /readyz and /healthz fail (500)
// while the store is unhealthy, listing "[-]etcd failed: reason withheld"
// as kube-apiserver does on its public endpoints; /readyz/etcd and
// /healthz/etcd say why. /livez stays ok: restarting the process does not
// mend the store. /readyz also fails until the server has started.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_SERVER_HEALTH_H_
#define KMOCK_SERVER_HEALTH_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/status.h"

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

// The text body for a health path when every check passes; verbose lists
// each check.
std::string HealthBody(std::string_view path, bool verbose);

struct HealthAnswer {
  int status = 200;
  std::string body;
};
// The answer for a health path: started is false until the server has
// finished starting; store is the store's Health().
HealthAnswer AnswerHealth(std::string_view path, bool verbose, bool started,
                          const Status& store);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_HEALTH_H_
