// GET of one object, of its status subresource (the same object), or of
// its scale subresource (an autoscaling/v1 Scale).
#include "registry/object_codec.h"
#include "server/errors.h"
#include "server/handlers/context.h"
#include "server/handlers/options.h"
#include "server/handlers/render.h"
#include "server/response.h"

namespace kmock::server {

namespace {

// A GET with resourceVersion reads "at least that fresh": kube-apiserver's
// storage refuses a version that is not a number (400) or that it has not
// reached yet (504 Too large resource version). Any version it has reached
// is served with the current object.
Status CheckResourceVersion(const RequestContext& ctx) {
  const std::string rv = QueryParam(*ctx.req, "resourceVersion");
  if (rv.empty()) return Status::Ok();
  KMOCK_ASSIGN_OR_RETURN(int64_t wanted, registry::ParseResourceVersion(rv));
  int64_t current = ctx.registry->storage()->CurrentRevision();
  if (wanted > current)
    return Status(StatusCode::kTimeout,
                  "Too large resource version: " + std::to_string(wanted) +
                      ", current: " + std::to_string(current));
  return Status::Ok();
}

}  // namespace

void HandleGet(const RequestContext& ctx, httplib::Response& res) {
  const std::string& sub = ctx.info->subresource;
  if (!sub.empty() && sub != "status" && sub != "scale") {
    WriteError(res, NotFoundPathError());
    return;
  }
  if (Status st = CheckResourceVersion(ctx); !st.ok())
    return WriteError(res, st);
  if (sub != "scale" && !ctx.output.table &&
      ctx.output.encoding == Encoding::kJson && !ctx.resource->virtual_items) {
    // The common case: the object's shared JSON bytes, encoded once.
    Result<registry::ServedPtr> served =
        ctx.registry->GetServed(*ctx.resource, ctx.info->ns, ctx.info->name);
    if (!served.ok()) return WriteError(res, served.status());
    res.status = 200;
    std::string body;
    body.reserve((*served)->JsonBytes().size() + 1);
    body.append((*served)->JsonBytes()).push_back('\n');
    SetBody(res, std::move(body), ctx.output.ContentType());
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
