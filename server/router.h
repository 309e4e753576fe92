// Routes one request: authentication, then the health/version, discovery
// and OpenAPI endpoints, then resource requests (URL → RequestInfo →
// catalog resource → verb check → content negotiation → body read → the
// verb's handler). Errors at each step become Status answers.
//
// Thread safety: a Router is immutable after construction apart from its
// thread-safe collaborators; Serve may run on many threads at once.
#ifndef KMOCK_SERVER_ROUTER_H_
#define KMOCK_SERVER_ROUTER_H_

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <string>

#include "api/resource.h"
#include "common/clock.h"
#include "common/rng.h"
#include "registry/registry.h"
#include "server/authn.h"
#include "server/openapi.h"
#include "server/request_info.h"
#include "server/stream_tracker.h"
#include "server/watch_fanout.h"
#include "sim/container.h"

namespace kmock::server {

struct RouterConfig {
  const api::Catalog* catalog = nullptr;
  registry::Registry* registry = nullptr;
  const Clock* clock = nullptr;
  Rng* rng = nullptr;
  StreamTracker* streams = nullptr;
  WatchFanout* fanout = nullptr;
  OpenApiDocs* openapi = nullptr;
  const Authenticator* authn = nullptr;
  // Null: no service account tokens (TokenRequest, TokenReview).
  const ServiceAccountTokens* service_accounts = nullptr;
  // The kubelets' containers (logs, exec); null: none run.
  const sim::ContainerDirectory* containers = nullptr;
  const std::atomic<bool>* ready = nullptr;
  size_t max_request_body_bytes = 3 * 1024 * 1024;
  std::string kubernetes_version;
  std::chrono::seconds min_request_timeout{1800};
  // A write that has not reached the store this long after it was routed
  // stores nothing and answers 504 (0 = no limit).
  std::chrono::milliseconds request_timeout{0};
};

class Router {
 public:
  explicit Router(RouterConfig config) : config_(std::move(config)) {}

  // `reader` is set when the request has a body not yet read.
  void Serve(const httplib::Request& req, httplib::Response& res,
             const httplib::ContentReader* reader) const;

 private:
  void ServeNonResource(const httplib::Request& req,
                        httplib::Response& res) const;
  void ServeResource(const httplib::Request& req, httplib::Response& res,
                     const httplib::ContentReader* reader, RequestInfo info,
                     const registry::UserInfo& user) const;
  void ServeDiscovery(const httplib::Request& req,
                      httplib::Response& res) const;

  RouterConfig config_;
};

}  // namespace kmock::server

#endif  // KMOCK_SERVER_ROUTER_H_
