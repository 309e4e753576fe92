#include "server/router.h"

#include <algorithm>

#include "server/discovery.h"
#include "server/errors.h"
#include "server/handlers/context.h"
#include "server/health.h"
#include "server/negotiation.h"
#include "server/request_info.h"
#include "server/response.h"

namespace kmock::server {
namespace {

using nlohmann::json;

const api::ResourceInfo* FindResource(const api::Catalog& catalog,
                                      const RequestInfo& info) {
  for (const api::ResourceInfo* r : catalog.resources()) {
    if (r->group == info.api_group && r->version == info.api_version &&
        r->plural == info.resource) {
      return r;
    }
  }
  return nullptr;
}

bool Contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The verbs of the addressed resource or subresource, or null when the
// subresource does not exist.
const std::vector<std::string>* VerbsOf(const api::ResourceInfo& r,
                                        const std::string& subresource) {
  if (subresource.empty()) return &r.verbs;
  for (const api::Subresource& s : r.subresources) {
    if (s.name == subresource) return &s.verbs;
  }
  return nullptr;
}

bool IsWrite(const std::string& verb) {
  return verb == "create" || verb == "update" || verb == "patch" ||
         verb == "delete" || verb == "deletecollection";
}

// A too-large body up to this size is read and thrown away, so that the
// client reads the 413 rather than a reset connection; past it the
// connection is closed unread.
constexpr size_t kDrainLimit = 64 * 1024 * 1024;

// Reads the body, refusing more than `max` bytes (from Content-Length before
// reading when it is given). Sets *must_close when the rest of the body was
// left unread.
Result<std::string> ReadBody(const httplib::Request& req,
                             const httplib::ContentReader* reader, size_t max,
                             bool* must_close) {
  *must_close = false;
  if (reader == nullptr) {
    if (req.body.size() > max) return RequestEntityTooLargeError(max);
    return req.body;
  }
  std::string length = req.get_header_value("Content-Length");
  if (req.has_header("Content-Length") &&
      (length.empty() ||
       length.find_first_not_of("0123456789") != std::string::npos)) {
    // "-5" and the like: Go's server refuses them before any handler.
    *must_close = true;
    return BadRequestError("bad Content-Length \"" + length + "\"");
  }
  if (!length.empty()) {
    char* end = nullptr;
    unsigned long long n = std::strtoull(length.c_str(), &end, 10);
    if (end != nullptr && *end == '\0' && n > max) {
      if (n <= kDrainLimit) {
        // The library discards a body over its payload limit while reading.
        (*reader)([](const char*, size_t) { return true; });
      } else {
        *must_close = true;
      }
      return RequestEntityTooLargeError(max);
    }
  }
  std::string body;
  size_t total = 0;
  bool ok = (*reader)([&](const char* data, size_t n) {
    total += n;
    if (total > kDrainLimit) return false;
    if (total <= max) body.append(data, n);
    return true;
  });
  if (!ok) *must_close = true;
  if (total > max) return RequestEntityTooLargeError(max);
  if (!ok) return BadRequestError("the request body could not be read");
  return body;
}

std::string ServerAddress(const httplib::Request& req) {
  std::string host = req.get_header_value("Host");
  if (!host.empty()) return host;
  return req.local_addr + ":" + std::to_string(req.local_port);
}

}  // namespace

void Router::Serve(const httplib::Request& req, httplib::Response& res,
                   const httplib::ContentReader* reader) const {
  Result<std::optional<registry::UserInfo>> user = config_.authn->Authenticate(
      req.ssl, req.get_header_value("Authorization"));
  if (!user.ok()) return WriteError(res, user.status());
  if (!user->has_value() && !IsPublicPath(req.path)) {
    return WriteError(res, UnauthorizedError());
  }

  bool watch_param =
      req.has_param("watch") && IsTrueParam(req.get_param_value("watch"));
  RequestInfo info = ParseRequestInfo(req.method, req.path, watch_param);
  if (info.is_resource_request)
    return ServeResource(req, res, reader, std::move(info), **user);
  if (req.method != "GET" && req.method != "HEAD") {
    return WriteError(res, MethodNotAllowedError());
  }
  ServeNonResource(req, res);
}

void Router::ServeNonResource(const httplib::Request& req,
                              httplib::Response& res) const {
  const std::string& path = req.path;
  if (path == "/version" || path == "/version/") {
    res.status = 200;
    return res.set_content(VersionBody(config_.kubernetes_version),
                           "application/json");
  }
  if (IsHealthPath(path)) {
    bool ready = config_.ready == nullptr || config_.ready->load();
    HealthAnswer answer = AnswerHealth(
        path, req.has_param("verbose"), ready,
        config_.registry != nullptr ? config_.registry->storage()->Health()
                                    : Status::Ok());
    res.status = answer.status;
    res.set_content(answer.body, "text/plain; charset=utf-8");
    return;
  }
  if (path == "/openapi/v3" || path == "/openapi/v3/") {
    return res.set_content(config_.openapi->V3Index(), "application/json");
  }
  if (path.rfind("/openapi/v3/", 0) == 0) {
    std::optional<std::string> doc =
        config_.openapi->V3Document(std::string_view(path).substr(12));
    if (!doc) return WriteError(res, NotFoundPathError());
    if (req.has_param("hash"))
      res.set_header("Cache-Control", "public, immutable");
    return res.set_content(*doc, "application/json");
  }
  if (path == "/openapi/v2") {
    return res.set_content(config_.openapi->V2Protobuf(),
                           kOpenApiV2ContentType);
  }
  ServeDiscovery(req, res);
}

void Router::ServeDiscovery(const httplib::Request& req,
                            httplib::Response& res) const {
  const api::Catalog& catalog = *config_.catalog;
  std::string path = req.path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path == "/api" || path == "/apis") {
    bool core = path == "/api";
    res.set_header("Vary", "Accept");
    switch (NegotiateDiscovery(req.get_header_value("Accept"))) {
      case DiscoveryFormat::kAggregatedV2:
        return WriteJson(res, 200, AggregatedDiscovery(catalog, core, "v2"),
                         AggregatedContentType("v2"));
      case DiscoveryFormat::kAggregatedV2Beta1:
        return WriteJson(res, 200,
                         AggregatedDiscovery(catalog, core, "v2beta1"),
                         AggregatedContentType("v2beta1"));
      case DiscoveryFormat::kLegacy:
        break;
    }
    return WriteJson(res, 200,
                     core ? ApiVersions(catalog, ServerAddress(req))
                          : ApiGroupList(catalog));
  }
  // /api/<v>, /apis/<g>, /apis/<g>/<v>
  RequestInfo info = ParseRequestInfo("GET", path, false);
  json doc;
  if (info.api_prefix == "api" && !info.api_version.empty()) {
    doc = ApiResourceList(catalog, "", info.api_version);
  } else if (info.api_prefix == "apis" && !info.api_group.empty()) {
    doc = ApiResourceList(catalog, info.api_group, info.api_version);
  } else if (path.rfind("/apis/", 0) == 0 &&
             path.find('/', 6) == std::string::npos) {
    doc = ApiGroup(catalog, path.substr(6));
  }
  if (doc.is_null()) return WriteError(res, NotFoundPathError());
  WriteJson(res, 200, doc);
}

namespace {

// The subresources with a handler of their own; every other request goes
// to the handler of its verb. The verbs each allows are the catalog's.
struct SubresourceHandler {
  const char* resource;
  const char* subresource;
  void (*handle)(const RequestContext&, httplib::Response&);
};
constexpr SubresourceHandler kSubresourceHandlers[] = {
    {"pods", "log", HandleLog},
    {"pods", "attach", HandleContainerStream},
    {"pods", "exec", HandleContainerStream},
    {"pods", "portforward", HandleContainerStream},
    {"nodes", "proxy", HandleNodeProxy},
};

}  // namespace

void Router::ServeResource(const httplib::Request& req, httplib::Response& res,
                           const httplib::ContentReader* reader,
                           RequestInfo info,
                           const registry::UserInfo& user) const {
  const api::ResourceInfo* resource = FindResource(*config_.catalog, info);
  // Only a proxy's path goes on past <resource>/<name>/<subresource>.
  if (resource == nullptr ||
      (info.parts.size() > 3 && info.subresource != "proxy")) {
    return WriteError(res, NotFoundPathError());
  }
  if (!resource->namespaced) {
    // /api/v1/namespaces/<name> addresses the Namespace itself; any other
    // namespace prefix on a cluster-scoped resource does not exist.
    bool namespace_object =
        info.resource == "namespaces" && info.ns == info.name;
    if (!info.ns.empty() && !namespace_object)
      return WriteError(res, NotFoundPathError());
    info.ns.clear();
  }
  const std::vector<std::string>* verbs = VerbsOf(*resource, info.subresource);
  if (verbs == nullptr) return WriteError(res, NotFoundPathError());
  if (info.verb.empty() || !Contains(*verbs, info.verb)) {
    return WriteError(res, MethodNotAllowedError());
  }
  // A deprecated resource warns on every request, as kube-apiserver does.
  if (!resource->warning.empty()) AddWarnings(res, {resource->warning});

  bool readable =
      info.verb == "get" || info.verb == "list" || info.verb == "watch";
  Result<OutputFormat> output =
      NegotiateOutput(req.get_header_value("Accept"), readable);
  if (!output.ok()) return WriteError(res, output.status());

  const auto routed = std::chrono::steady_clock::now();
  std::string body;
  if (IsWrite(info.verb)) {
    bool must_close = false;
    Result<std::string> read =
        ReadBody(req, reader, config_.max_request_body_bytes, &must_close);
    // A body left unread must not be parsed as the next request.
    if (must_close) res.set_header("Connection", "close");
    if (!read.ok()) return WriteError(res, read.status());
    body = std::move(read).value();
  }

  RequestContext ctx;
  ctx.req = &req;
  ctx.info = &info;
  ctx.resource = resource;
  ctx.user = user;
  ctx.registry = config_.registry;
  ctx.clock = config_.clock;
  ctx.rng = config_.rng;
  ctx.streams = config_.streams;
  ctx.fanout = config_.fanout;
  ctx.service_accounts = config_.service_accounts;
  ctx.containers = config_.containers;
  ctx.output = *output;
  ctx.body = &body;
  ctx.min_request_timeout = config_.min_request_timeout;
  if (IsWrite(info.verb) && config_.request_timeout.count() > 0)
    ctx.deadline = routed + config_.request_timeout;

  for (const SubresourceHandler& h : kSubresourceHandlers) {
    if (info.subresource == h.subresource && info.resource == h.resource &&
        info.api_group.empty()) {
      return h.handle(ctx, res);
    }
  }
  if (info.verb == "get") return HandleGet(ctx, res);
  if (info.verb == "list") return HandleList(ctx, res);
  if (info.verb == "watch") return HandleWatch(ctx, res);
  if (info.verb == "create") return HandleCreate(ctx, res);
  if (info.verb == "update") return HandleUpdate(ctx, res);
  if (info.verb == "patch") return HandlePatch(ctx, res);
  if (info.verb == "delete") return HandleDelete(ctx, res);
  if (info.verb == "deletecollection") return HandleDeleteCollection(ctx, res);
  WriteError(res, MethodNotAllowedError());
}

}  // namespace kmock::server
