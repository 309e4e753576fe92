#include "server/handlers/body.h"

#include "server/negotiation.h"

namespace kmock::server {
namespace {

using nlohmann::json;

std::string StringField(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

Result<json> ReadObjectBody(const RequestContext& ctx, BodyCheck check,
                            api::BodyFindings* findings) {
  std::string content_type = ctx.req->get_header_value("Content-Type");
  // Every scale subresource speaks the built-in autoscaling/v1 Scale.
  const api::Type* expected =
      ctx.info->subresource == "scale"
          ? api::Schema::Builtin().Find("io.k8s.api.autoscaling.v1.Scale")
          : ctx.resource->type;
  Result<DecodedBody> decoded =
      DecodeBodyWithFindings(content_type, *ctx.body, expected);
  if (!decoded.ok()) {
    std::string media = MediaType(content_type);
    if (decoded.status().code() == StatusCode::kBadRequest &&
        (media.empty() || media == "application/json")) {
      return UnrecognizedObjectError(ctx.resource->kind, *ctx.body);
    }
    return decoded.status();
  }
  json obj = std::move(decoded->object);
  if (findings) *findings = std::move(decoded->findings);
  if (!obj.is_object()) {
    return BadRequestError("the body of the request must be a JSON object");
  }
  const api::ResourceInfo& r = *ctx.resource;
  // A subresource that speaks another kind (Scale) is checked by the registry.
  if (ctx.info->subresource.empty() || ctx.info->subresource == "status") {
    std::string api_version = StringField(obj, "apiVersion");
    if (api_version.empty()) {
      obj["apiVersion"] = r.ApiVersion();
    } else if (api_version != r.ApiVersion()) {
      return BadRequestError("the API version in the data (" + api_version +
                             ") does not match the expected API version (" +
                             r.ApiVersion() + ")");
    }
    std::string kind = StringField(obj, "kind");
    if (kind.empty()) {
      obj["kind"] = r.kind;
    } else if (kind != r.kind) {
      return BadRequestError("the kind in the data (" + kind +
                             ") does not match the expected kind (" + r.kind +
                             ")");
    }
  }
  if (!obj.contains("metadata") || obj["metadata"].is_null()) {
    obj["metadata"] = json::object();
  }
  if (!obj["metadata"].is_object()) {
    return BadRequestError("metadata must be an object");
  }
  const json& meta = obj["metadata"];
  std::string ns = StringField(meta, "namespace");
  if (r.namespaced && !ns.empty() && ns != ctx.info->ns) {
    return BadRequestError(
        check == BodyCheck::kCreate
            ? "the namespace of the provided object does not match the "
              "namespace "
              "sent on the request"
            : "the namespace of the object (" + ns +
                  ") does not match the namespace on the request (" +
                  ctx.info->ns + ")");
  }
  if (check == BodyCheck::kUpdate) {
    std::string name = StringField(meta, "name");
    if (name != ctx.info->name) {
      return BadRequestError("the name of the object (" + name +
                             ") does not match the name on the URL (" +
                             ctx.info->name + ")");
    }
  }
  return obj;
}

}  // namespace kmock::server
