// GET of one object, of its status subresource (the same object), or of
// its scale subresource (an autoscaling/v1 Scale).
#include "server/errors.h"
#include "server/handlers/context.h"
#include "server/handlers/render.h"
#include "server/response.h"

namespace kmock::server {

void HandleGet(const RequestContext& ctx, httplib::Response& res) {
  const std::string& sub = ctx.info->subresource;
  if (!sub.empty() && sub != "status" && sub != "scale") {
    WriteError(res, NotFoundPathError());
    return;
  }
  if (sub != "scale" && !ctx.output.table &&
      ctx.output.encoding == Encoding::kJson) {
    // The common case: the object's shared JSON bytes, encoded once.
    Result<registry::ServedPtr> served =
        ctx.registry->GetServed(*ctx.resource, ctx.info->ns, ctx.info->name);
    if (!served.ok()) return WriteError(res, served.status());
    res.status = 200;
    std::string body;
    body.reserve((*served)->JsonBytes().size() + 1);
    body.append((*served)->JsonBytes()).push_back('\n');
    res.set_content(std::move(body), ctx.output.ContentType());
    return;
  }
  Result<nlohmann::json> obj =
      ctx.registry->Get(*ctx.resource, ctx.info->ns, ctx.info->name, sub);
  if (!obj.ok()) {
    WriteError(res, obj.status());
    return;
  }
  if (sub == "scale") {
    // A Scale has no Table form: answer the object itself.
    OutputFormat plain = ctx.output;
    plain.table = false;
    WriteEncoded(res, 200, *obj, plain);
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
