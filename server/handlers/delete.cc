// DELETE of one object and of a collection. DeleteOptions come from the
// query (gracePeriodSeconds, propagationPolicy, orphanDependents, dryRun)
// and from a JSON body, which wins.
//
// As kube-apiserver answers: an object that is gone gives 200 with a
// Success Status naming it (details name, group, kind, uid); an object whose
// deletion is pending (grace period, finalizers) gives 200 with the object,
// or 202 when orphanDependents=false was asked. A collection delete gives
// 200 with the List of what was deleted.
#include "server/errors.h"
#include "server/handlers/context.h"
#include "server/handlers/options.h"
#include "server/response.h"

namespace kmock::server {

void HandleDelete(const RequestContext& ctx, httplib::Response& res) {
  if (!ctx.info->subresource.empty())
    return WriteError(res, MethodNotAllowedError());
  Result<DeleteRequest> d = DeleteRequestFrom(*ctx.req, *ctx.body, ctx.user);
  if (!d.ok()) return WriteError(res, d.status());
  d->options.deadline = ctx.deadline;
  Result<registry::DeleteResult> out = ctx.registry->Delete(
      *ctx.resource, ctx.info->ns, ctx.info->name, d->options);
  if (!out.ok()) return WriteError(res, out.status());
  if (!out->deleted) {
    WriteEncoded(res, d->orphan_dependents_false ? 202 : 200, out->object,
                 ctx.output);
    return;
  }
  StatusDetails details;
  details.name = ctx.info->name;
  details.group = ctx.resource->group;
  details.kind = ctx.resource->plural;
  if (out->object.is_object() && out->object.contains("metadata")) {
    details.uid = out->object["metadata"].value("uid", "");
  }
  WriteEncoded(res, 200, SuccessStatusJson(details), ctx.output);
}

void HandleDeleteCollection(const RequestContext& ctx, httplib::Response& res) {
  Result<registry::ListOptions> selectors = ListOptionsFrom(*ctx.req);
  if (!selectors.ok()) return WriteError(res, selectors.status());
  Result<DeleteRequest> d = DeleteRequestFrom(*ctx.req, *ctx.body, ctx.user);
  if (!d.ok()) return WriteError(res, d.status());
  Result<nlohmann::json> out = ctx.registry->DeleteCollection(
      *ctx.resource, ctx.info->ns, *selectors, d->options);
  if (!out.ok()) return WriteError(res, out.status());
  WriteEncoded(res, 200, *out, ctx.output);
}

}  // namespace kmock::server
