// A stack-safe nesting check for JSON values handed to the patch functions.
//
// The patch algorithms recurse once per nesting level. Real objects are a
// few dozen levels deep; a hostile body could be thousands deep and exhaust
// the thread's stack, so every public patch function rejects inputs deeper
// than kMaxPatchDepth (measured without recursion) with 400 BadRequest.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_PATCH_JSON_DEPTH_H_
#define KMOCK_PATCH_JSON_DEPTH_H_

#include <cstddef>
#include <nlohmann/json.hpp>

#include "common/status.h"

namespace kmock::patch {

inline constexpr size_t kMaxPatchDepth = 1000;

// True if value nests objects/arrays more than max_depth levels deep.
bool DeeperThan(const nlohmann::json& value, size_t max_depth);

// Ok, or 400 BadRequest naming `what` when value is deeper than
// kMaxPatchDepth.
Status CheckDepth(const nlohmann::json& value, const char* what);

}  // namespace kmock::patch

#endif  // KMOCK_PATCH_JSON_DEPTH_H_
