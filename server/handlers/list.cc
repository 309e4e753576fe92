// GET of a collection: labelSelector, fieldSelector, limit, continue,
// resourceVersion and resourceVersionMatch go to the registry; the List (or
// its Table) comes back.
#include "server/handlers/context.h"
#include "server/handlers/options.h"
#include "server/handlers/render.h"
#include "server/response.h"

namespace kmock::server {

void HandleList(const RequestContext& ctx, httplib::Response& res) {
  Result<registry::ListOptions> opts = ListOptionsFrom(*ctx.req);
  if (!opts.ok()) {
    WriteError(res, opts.status());
    return;
  }
  Result<nlohmann::json> list =
      ctx.registry->List(*ctx.resource, ctx.info->ns, *opts);
  if (!list.ok()) {
    WriteError(res, list.status());
    return;
  }
  Result<nlohmann::json> out =
      Render(ctx, std::move(list).value(), /*is_list=*/true);
  if (!out.ok()) {
    WriteError(res, out.status());
    return;
  }
  WriteEncoded(res, 200, *out, ctx.output);
}

}  // namespace kmock::server
