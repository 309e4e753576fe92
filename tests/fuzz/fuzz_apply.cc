// Fuzz target: a server-side apply body (application/apply-patch+yaml),
// YAML or JSON, applied by the field manager to a live object and, as a
// create, to no object at all; an apply that succeeds runs on through the
// registry's create or update pipeline.
//
// The input is an optional first line naming the live object ("pods",
// "deployments", ...; pods when absent) followed by the apply body.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fieldmanager/field_manager.h"
#include "server/yaml_json.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using namespace kmock;  // NOLINT(build/namespaces): a test entry point
using nlohmann::json;

std::optional<json> ApplyBody(std::string_view text) {
  // As the PATCH handler: JSON is taken as is, anything else is YAML.
  if (std::optional<json> j = fuzz::ParseJson(text)) return j;
  Result<json> doc = server::YamlToJson(text);
  if (!doc.ok()) return std::nullopt;
  return fuzz::ParseJson(doc->dump());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Targeted in = fuzz::SplitTarget(fuzz::AsText(data, size));
  std::optional<json> applied = ApplyBody(in.rest);
  if (!applied) return 0;
  const fuzz::Live& live = fuzz::LiveObject(in.resource);
  const api::ResourceInfo& res = *live.resource;

  fieldmanager::ApplyOptions o;
  o.manager = "kubectl";
  o.api_version = res.ApiVersion();
  o.kind = res.kind;
  o.time = TimePoint(std::chrono::seconds(1'790'000'000));
  o.reset_fields =
      fieldmanager::DefaultResetFields("", res.status_strategy != nullptr);
  for (bool force : {false, true}) {
    o.force = force;
    auto r = fieldmanager::Apply(live.object, *applied, o,
                                 api::Schema::Builtin(), live.type);
    if (r.ok()) {
      fuzz::RunUpdatePipeline(res, live.object, std::move(r->object),
                              /*track_fields=*/false);
    }
  }
  if (applied->is_object()) {
    o.force = false;
    auto r = fieldmanager::Apply(json(nullptr), *applied, o,
                                 api::Schema::Builtin(), live.type);
    if (r.ok()) fuzz::RunCreatePipeline(res, std::move(r->object));
  }
  return 0;
}
