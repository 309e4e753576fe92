// GET of one object, or of its status subresource (the same object).
#include "server/errors.h"
#include "server/handlers/context.h"
#include "server/handlers/render.h"
#include "server/response.h"

namespace kmock::server {

void HandleGet(const RequestContext& ctx, httplib::Response& res) {
  const std::string& sub = ctx.info->subresource;
  if (!sub.empty() && sub != "status") {
    WriteError(res, NotFoundPathError());
    return;
  }
  Result<nlohmann::json> obj =
      ctx.registry->Get(*ctx.resource, ctx.info->ns, ctx.info->name);
  if (!obj.ok()) {
    WriteError(res, obj.status());
    return;
  }
  Result<nlohmann::json> out =
      Render(ctx, std::move(obj).value(), /*is_list=*/false);
  if (!out.ok()) {
    WriteError(res, out.status());
    return;
  }
  WriteEncoded(res, 200, *out, ctx.output);
}

}  // namespace kmock::server
