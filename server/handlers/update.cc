// PUT of an object or of a subresource: decode, check the name and
// namespace against the URL, Registry::Update; 200, or 201 when the update
// created the object.
#include "server/handlers/body.h"
#include "server/handlers/context.h"
#include "server/handlers/options.h"
#include "server/response.h"

namespace kmock::server {

void HandleUpdate(const RequestContext& ctx, httplib::Response& res) {
  std::vector<std::string> warnings;
  Result<registry::WriteOptions> opts =
      WriteOptionsFrom(*ctx.req, ctx.user, "UpdateOptions");
  if (!opts.ok()) return WriteError(res, opts.status());
  opts->warnings = &warnings;
  opts->deadline = ctx.deadline;

  api::BodyFindings findings;
  Result<nlohmann::json> obj =
      ReadObjectBody(ctx, BodyCheck::kUpdate, &findings);
  opts->body_findings = &findings;
  if (!obj.ok()) return WriteError(res, obj.status());
  Result<registry::WriteResult> out = ctx.registry->Update(
      *ctx.resource, ctx.info->ns, ctx.info->name, ctx.info->subresource,
      std::move(obj).value(), *opts);
  if (!out.ok()) return WriteError(res, out.status());
  AddWarnings(res, warnings);
  WriteEncoded(res, out->created ? 201 : 200, out->object, ctx.output);
}

}  // namespace kmock::server
