// Fuzz target: a strategic merge patch (application/strategic-merge-patch+json)
// body, merged by the schema's patch strategies and merge keys.
//
// The input is an optional first line naming the live object to patch
// ("pods", "deployments", "services", "namespaces", "nodes",
// "replicasets"; pods when absent) followed by the patch body. A patch
// that applies runs on through the registry's update pipeline, as a PATCH
// request's result does.
#include <cstddef>
#include <cstdint>

#include "patch/strategic_merge_patch.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kmock;  // NOLINT(build/namespaces): a test entry point
  fuzz::Targeted in = fuzz::SplitTarget(fuzz::AsText(data, size));
  std::optional<nlohmann::json> patch = fuzz::ParseJson(in.rest);
  if (!patch) return 0;  // the registry answers 400 before patching
  const fuzz::Live& live = fuzz::LiveObject(in.resource);
  Result<nlohmann::json> patched = patch::ApplyStrategicMergePatch(
      live.object, *patch, api::Schema::Builtin(), live.type);
  if (patched.ok()) {
    fuzz::RunUpdatePipeline(*live.resource, live.object,
                            std::move(patched).value(), /*track_fields=*/true);
  }
  return 0;
}
