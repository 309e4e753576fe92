#include "tests/fuzz/fuzz_body.h"

#include <httplib.h>

#include <string>

#include "server/handlers/body.h"
#include "server/handlers/context.h"
#include "server/negotiation.h"
#include "server/request_info.h"
#include "tests/fuzz/fuzz_util.h"

namespace kmock::fuzz {
namespace {

using nlohmann::json;

// The live object of res's kind, or null when none is embedded.
const Live* LiveOf(const api::ResourceInfo& res) {
  for (const LiveText& t : LiveTexts()) {
    if (res.plural == t.resource) return &LiveObject(t.resource);
  }
  return nullptr;
}

Result<json> ReadBody(const api::ResourceInfo& res, std::string_view ct,
                      const std::string& body, server::BodyCheck check,
                      const std::string& name) {
  httplib::Request req;
  req.method = check == server::BodyCheck::kCreate ? "POST" : "PUT";
  req.headers.emplace("Content-Type", std::string(ct));
  server::RequestInfo info;
  info.is_resource_request = true;
  info.verb = check == server::BodyCheck::kCreate ? "create" : "update";
  info.api_group = res.group;
  info.api_version = res.version;
  info.resource = res.plural;
  info.ns = res.namespaced ? "default" : "";
  info.name = name;
  server::RequestContext ctx;
  ctx.req = &req;
  ctx.info = &info;
  ctx.resource = &res;
  ctx.body = &body;
  return server::ReadObjectBody(ctx, check);
}

}  // namespace

void FuzzObjectBody(std::string_view content_type, std::string_view text) {
  std::string body(text);
  // The URL names the kind; take the one the body claims, as a client
  // posting this body would have addressed it.
  const api::ResourceInfo* res = nullptr;
  if (Result<json> peek = server::DecodeBody(content_type, body); peek.ok())
    res = ResourceFor(*peek);
  if (!res) res = LiveObject("pods").resource;

  if (Result<json> created =
          ReadBody(*res, content_type, body, server::BodyCheck::kCreate, "");
      created.ok()) {
    RunCreatePipeline(*res, std::move(created).value());
  }

  const Live* live = LiveOf(*res);
  if (!live) return;
  std::string name = live->object["metadata"]["name"].get<std::string>();
  Result<json> updated =
      ReadBody(*res, content_type, body, server::BodyCheck::kUpdate, name);
  if (!updated.ok()) return;
  json obj = std::move(updated).value();
  if (!obj["metadata"].is_object()) return;
  // A PUT normally carries the live object's identity; keep it so that the
  // update checks look past the immutable fields.
  const json& old_meta = live->object["metadata"];
  for (const char* f : {"namespace", "uid", "creationTimestamp"}) {
    if (old_meta.contains(f)) obj["metadata"][f] = old_meta[f];
  }
  RunUpdatePipeline(*res, live->object, std::move(obj), /*track_fields=*/true);
}

}  // namespace kmock::fuzz
