#include "server/handlers/render.h"

#include "server/handlers/options.h"

namespace kmock::server {

Result<TableOptions> TableOptionsFor(const RequestContext& ctx) {
  TableOptions opts;
  opts.version = ctx.output.table_version;
  KMOCK_ASSIGN_OR_RETURN(
      opts.include, ParseIncludeObject(QueryParam(*ctx.req, "includeObject")));
  return opts;
}

Result<nlohmann::json> Render(const RequestContext& ctx, nlohmann::json value,
                              bool is_list) {
  if (!ctx.output.table) return value;
  KMOCK_ASSIGN_OR_RETURN(TableOptions opts, TableOptionsFor(ctx));
  TimePoint now = ctx.clock->Now();
  return is_list ? ListToTable(*ctx.resource, value, now, opts)
                 : ObjectToTable(*ctx.resource, value, now, opts);
}

}  // namespace kmock::server
