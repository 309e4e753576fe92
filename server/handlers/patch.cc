// PATCH of an object or subresource. The Content-Type picks the patch type
// (JSON patch, merge patch, strategic merge patch, server-side apply); an
// apply body in YAML is turned into JSON before the registry sees it.
// Returns 200, or 201 when an apply created the object.
#include "server/errors.h"
#include "server/handlers/context.h"
#include "server/handlers/options.h"
#include "server/negotiation.h"
#include "server/response.h"
#include "server/yaml_json.h"

namespace kmock::server {

void HandlePatch(const RequestContext& ctx, httplib::Response& res) {
  Result<registry::PatchType> type =
      PatchTypeOf(ctx.req->get_header_value("Content-Type"));
  if (!type.ok()) return WriteError(res, type.status());

  std::vector<std::string> warnings;
  Result<registry::WriteOptions> opts =
      WriteOptionsFrom(*ctx.req, ctx.user, "PatchOptions");
  if (!opts.ok()) return WriteError(res, opts.status());
  opts->warnings = &warnings;
  opts->deadline = ctx.deadline;

  bool apply = *type == registry::PatchType::kApply;
  if (apply && QueryParam(*ctx.req, "fieldManager").empty()) {
    return WriteError(res,
                      InvalidOptionsError("PatchOptions", "fieldManager",
                                          "FieldValueRequired",
                                          "Required value: is required for "
                                          "apply patch"));
  }
  if (!apply && ctx.req->has_param("force")) {
    return WriteError(
        res, InvalidOptionsError("PatchOptions", "force", "FieldValueForbidden",
                                 "Forbidden: may not be specified for "
                                 "non-apply patch"));
  }

  std::string body = *ctx.body;
  if (apply) {
    // JSON is valid YAML; only a non-JSON body needs converting.
    if (!nlohmann::json::accept(body)) {
      Result<nlohmann::json> doc = YamlToJson(body);
      if (!doc.ok()) return WriteError(res, doc.status());
      body = doc->dump();
    }
  }
  Result<registry::WriteResult> out =
      ctx.registry->Patch(*ctx.resource, ctx.info->ns, ctx.info->name,
                          ctx.info->subresource, *type, body, *opts);
  if (!out.ok()) return WriteError(res, out.status());
  AddWarnings(res, warnings);
  WriteEncoded(res, out->created ? 201 : 200, out->object, ctx.output);
}

}  // namespace kmock::server
