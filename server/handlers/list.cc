// GET of a collection: labelSelector, fieldSelector, limit, continue,
// resourceVersion and resourceVersionMatch go to the registry; the List (or
// its Table) comes back.
#include "api/json_encode.h"
#include "server/handlers/context.h"
#include "server/handlers/options.h"
#include "server/handlers/render.h"
#include "server/response.h"

namespace kmock::server {

namespace {

// The List as kube-apiserver writes it (kind, apiVersion, metadata with
// resourceVersion, continue and remainingItemCount, items), from each
// item's shared bytes.
std::string ListJson(const api::ResourceInfo& resource,
                     const registry::ServedList& list) {
  size_t size = 128 + list.continue_token.size();
  for (const auto& item : list.items) size += item->JsonBytes().size();
  std::string out;
  out.reserve(size);
  out += "{\"kind\":";
  api::AppendJsonString(resource.list_kind, &out);
  out += ",\"apiVersion\":";
  api::AppendJsonString(resource.ApiVersion(), &out);
  out += ",\"metadata\":{\"resourceVersion\":\"";
  out += std::to_string(list.revision);
  out += '"';
  if (!list.continue_token.empty()) {
    out += ",\"continue\":";
    api::AppendJsonString(list.continue_token, &out);
    if (list.remaining_item_count) {
      out += ",\"remainingItemCount\":";
      out += std::to_string(*list.remaining_item_count);
    }
  }
  out += "},\"items\":[";
  for (size_t i = 0; i < list.items.size(); ++i) {
    if (i > 0) out += ',';
    registry::AppendListItemJson(*list.items[i], &out);
  }
  out += "]}\n";
  return out;
}

}  // namespace

void HandleList(const RequestContext& ctx, httplib::Response& res) {
  Result<registry::ListOptions> opts = ListOptionsFrom(*ctx.req);
  if (!opts.ok()) {
    WriteError(res, opts.status());
    return;
  }
  if (!ctx.output.table && ctx.output.encoding == Encoding::kJson) {
    // The common case: items written from their shared, encoded-once bytes.
    Result<registry::ServedList> served =
        ctx.registry->ListServed(*ctx.resource, ctx.info->ns, *opts);
    if (!served.ok()) return WriteError(res, served.status());
    res.status = 200;
    res.set_content(ListJson(*ctx.resource, *served), ctx.output.ContentType());
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
