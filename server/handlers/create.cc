// POST to a collection: decode, check, Registry::Create, 201 with the
// object. POST pods/<name>/binding goes to Registry::Bind.
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

}  // namespace

void HandleCreate(const RequestContext& ctx, httplib::Response& res) {
  std::vector<std::string> warnings;
  Result<registry::WriteOptions> opts =
      WriteOptionsFrom(*ctx.req, ctx.user, "CreateOptions");
  if (!opts.ok()) return WriteError(res, opts.status());
  opts->warnings = &warnings;
  opts->deadline = ctx.deadline;

  const std::string& sub = ctx.info->subresource;
  if (sub == "binding" && ctx.resource->group.empty() &&
      ctx.resource->plural == "pods") {
    return HandleBind(ctx, *opts, res);
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
