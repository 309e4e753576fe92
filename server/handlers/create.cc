// POST to a collection: decode, check, Registry::Create, 201 with the
// object. What the server itself answers is in one table: POST
// pods/<name>/binding (Registry::Bind), pods/<name>/eviction
// (registry/eviction.h), serviceaccounts/<name>/token (TokenRequest) and
// tokenreviews.
#include "registry/eviction.h"
#include "server/errors.h"
#include "server/handlers/body.h"
#include "server/handlers/context.h"
#include "server/handlers/options.h"
#include "server/negotiation.h"
#include "server/response.h"

namespace kmock::server {
namespace {

void HandleBind(const RequestContext& ctx, const registry::WriteOptions& opts,
                httplib::Response& res) {
  Result<nlohmann::json> binding =
      DecodeBody(ctx.req->get_header_value("Content-Type"), *ctx.body);
  if (!binding.ok()) return WriteError(res, binding.status());
  Result<nlohmann::json> out =
      ctx.registry->Bind(ctx.info->ns, ctx.info->name, *binding, opts);
  if (!out.ok()) return WriteError(res, out.status());
  AddWarnings(res, *opts.warnings);
  WriteEncoded(res, 201, *out, ctx.output);
}

void HandleEviction(const RequestContext& ctx,
                    const registry::WriteOptions& opts,
                    httplib::Response& res) {
  Result<nlohmann::json> eviction =
      DecodeBody(ctx.req->get_header_value("Content-Type"), *ctx.body);
  if (!eviction.ok()) return WriteError(res, eviction.status());
  // The delete options come from the Eviction; a dry run asked for in the
  // query holds as well.
  const nlohmann::json* in_body = nullptr;
  if (eviction->is_object()) {
    auto it = eviction->find("deleteOptions");
    if (it != eviction->end() && it->is_object()) in_body = &*it;
  }
  Result<DeleteRequest> d = DeleteRequestFromJson(
      *ctx.req, in_body ? *in_body : nlohmann::json(), ctx.user);
  if (!d.ok()) return WriteError(res, d.status());
  d->options.dry_run = d->options.dry_run || opts.dry_run;
  d->options.deadline = ctx.deadline;
  Result<nlohmann::json> out = registry::EvictPod(
      *ctx.registry, ctx.info->ns, ctx.info->name, *eviction, d->options);
  if (!out.ok()) return WriteError(res, out.status());
  WriteEncoded(res, 201, *out, ctx.output);
}

void HandleTokenRequest(const RequestContext& ctx,
                        const registry::WriteOptions& opts,
                        httplib::Response& res) {
  Result<nlohmann::json> request =
      DecodeBody(ctx.req->get_header_value("Content-Type"), *ctx.body);
  if (!request.ok()) return WriteError(res, request.status());
  Result<nlohmann::json> out =
      ctx.service_accounts->Issue(ctx.info->ns, ctx.info->name, *request);
  if (!out.ok()) return WriteError(res, out.status());
  // A dry run is checked and answered without a token.
  if (opts.dry_run) (*out)["status"]["token"] = "";
  WriteEncoded(res, 201, *out, ctx.output);
}

void HandleTokenReview(const RequestContext& ctx,
                       const registry::WriteOptions& /*opts*/,
                       httplib::Response& res) {
  Result<nlohmann::json> review =
      DecodeBody(ctx.req->get_header_value("Content-Type"), *ctx.body);
  if (!review.ok()) return WriteError(res, review.status());
  WriteEncoded(res, 201, ctx.service_accounts->Review(*review), ctx.output);
}

using ServerCreate = void (*)(const RequestContext&,
                              const registry::WriteOptions&,
                              httplib::Response&);

struct ServerCreateEntry {
  const char* group;
  const char* plural;
  const char* subresource;
  ServerCreate handle;
  bool needs_tokens;  // served only with service account tokens
};

constexpr ServerCreateEntry kServerCreates[] = {
    {"", "pods", "binding", HandleBind, false},
    {"", "pods", "eviction", HandleEviction, false},
    {"", "serviceaccounts", "token", HandleTokenRequest, true},
    {"authentication.k8s.io", "tokenreviews", "", HandleTokenReview, true},
};

const ServerCreateEntry* FindServerCreate(const RequestContext& ctx) {
  for (const ServerCreateEntry& e : kServerCreates) {
    if (ctx.resource->group == e.group && ctx.resource->plural == e.plural &&
        ctx.info->subresource == e.subresource) {
      return &e;
    }
  }
  return nullptr;
}

}  // namespace

void HandleCreate(const RequestContext& ctx, httplib::Response& res) {
  std::vector<std::string> warnings;
  Result<registry::WriteOptions> opts =
      WriteOptionsFrom(*ctx.req, ctx.user, "CreateOptions");
  if (!opts.ok()) return WriteError(res, opts.status());
  opts->warnings = &warnings;
  opts->deadline = ctx.deadline;

  const std::string& sub = ctx.info->subresource;
  if (const ServerCreateEntry* e = FindServerCreate(ctx)) {
    if (e->needs_tokens && ctx.service_accounts == nullptr) {
      return WriteError(res, MethodNotAllowedError());
    }
    return e->handle(ctx, *opts, res);
  }
  if (!sub.empty() || !ctx.info->name.empty()) {
    return WriteError(res, MethodNotAllowedError());
  }

  api::BodyFindings findings;
  Result<nlohmann::json> obj =
      ReadObjectBody(ctx, BodyCheck::kCreate, &findings);
  opts->body_findings = &findings;
  if (!obj.ok()) return WriteError(res, obj.status());
  Result<registry::WriteResult> out = ctx.registry->Create(
      *ctx.resource, ctx.info->ns, std::move(obj).value(), *opts);
  if (!out.ok()) return WriteError(res, out.status());
  AddWarnings(res, warnings);
  WriteEncoded(res, 201, out->object, ctx.output);
}

}  // namespace kmock::server
