// What every verb handler gets: the parsed request, the resource it
// addresses, the authenticated user and the server's collaborators. One
// handler per verb lives in its own file beside this one (after
// k8s.io/apiserver's endpoints/handlers).
//
// Thread safety: a RequestContext belongs to one request on one thread; the
// pointers it holds are thread-safe collaborators (Registry, Clock, Rng,
// StreamTracker).
#ifndef KMOCK_SERVER_HANDLERS_CONTEXT_H_
#define KMOCK_SERVER_HANDLERS_CONTEXT_H_

#include <httplib.h>

#include <chrono>
#include <optional>
#include <string>

#include "api/resource.h"
#include "common/clock.h"
#include "common/rng.h"
#include "registry/registry.h"
#include "server/negotiation.h"
#include "server/request_info.h"
#include "server/service_account_tokens.h"
#include "server/stream_tracker.h"
#include "server/watch_fanout.h"
#include "sim/container.h"

namespace kmock::server {

struct RequestContext {
  const httplib::Request* req = nullptr;
  const RequestInfo* info = nullptr;
  const api::ResourceInfo* resource = nullptr;
  registry::UserInfo user;
  registry::Registry* registry = nullptr;
  const Clock* clock = nullptr;
  Rng* rng = nullptr;
  StreamTracker* streams = nullptr;
  // Writes watch events for parked streams; null: each stream writes its
  // own from its connection's thread.
  WatchFanout* fanout = nullptr;
  // Issues and checks service account tokens; null when there are none.
  const ServiceAccountTokens* service_accounts = nullptr;
  // The kubelets' containers (logs, exec); null: none run.
  const sim::ContainerDirectory* containers = nullptr;
  OutputFormat output;
  // The request body (already read and size-checked), for writes.
  const std::string* body = nullptr;
  // Base of the jittered watch timeout.
  std::chrono::seconds min_request_timeout{1800};
  // When a write must have reached the store (request_timeout after the
  // request was routed); none for reads.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

// get.cc: GET of one object (or of its status subresource).
void HandleGet(const RequestContext& ctx, httplib::Response& res);
// list.cc: GET of a collection.
void HandleList(const RequestContext& ctx, httplib::Response& res);
// watch.cc: GET of a collection with watch=true, or under /watch/.
void HandleWatch(const RequestContext& ctx, httplib::Response& res);
// create.cc: POST to a collection (and POST pods/<name>/binding).
void HandleCreate(const RequestContext& ctx, httplib::Response& res);
// update.cc: PUT of an object or subresource.
void HandleUpdate(const RequestContext& ctx, httplib::Response& res);
// patch.cc: PATCH of an object or subresource.
void HandlePatch(const RequestContext& ctx, httplib::Response& res);
// container_stream.cc: pods/<name>/attach, exec and portforward.
void HandleContainerStream(const RequestContext& ctx, httplib::Response& res);
// delete.cc: DELETE of one object, and of a collection.
void HandleDelete(const RequestContext& ctx, httplib::Response& res);
void HandleDeleteCollection(const RequestContext& ctx, httplib::Response& res);
// GET pods/<name>/log (and follow=true).
void HandleLog(const RequestContext& ctx, httplib::Response& res);
// nodes/<name>[:<port>]/proxy/<path> (node_proxy.cc).
void HandleNodeProxy(const RequestContext& ctx, httplib::Response& res);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_HANDLERS_CONTEXT_H_
