#include "patch/merge_patch.h"

#include <string>
#include <utility>

#include "patch/go_format.h"
#include "patch/json_depth.h"
#include "patch/patch_status.h"

namespace kmock::patch {
namespace {

using json = nlohmann::json;

// Drops null members of objects, recursively through objects and arrays;
// null array elements stay.
void PruneNulls(json& value) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end();) {
      if (it->is_null()) {
        it = value.erase(it);
      } else {
        PruneNulls(*it);
        ++it;
      }
    }
  } else if (value.is_array()) {
    for (json& element : value) {
      if (!element.is_null()) PruneNulls(element);
    }
  }
}

void MergeDocs(json& doc, json& patch);

// The new value for a key present in both documents.
json Merge(json& current, json& patch) {
  if (!current.is_object()) {
    PruneNulls(patch);
    return std::move(patch);
  }
  if (!patch.is_object()) return std::move(patch);
  MergeDocs(current, patch);
  return std::move(current);
}

void MergeDocs(json& doc, json& patch) {
  for (auto& [key, value] : patch.items()) {
    if (value.is_null()) {
      doc.erase(key);
      continue;
    }
    auto it = doc.find(key);
    if (it == doc.end() || it->is_null()) {
      PruneNulls(value);
      doc[key] = std::move(value);
    } else {
      *it = Merge(*it, value);
    }
  }
}

}  // namespace

Result<json> ApplyMergePatch(const json& original, const json& patch) {
  try {
    if (patch.is_null()) return UnconvertedError("Invalid JSON Patch");
    if (!patch.is_object()) {
      return BadRequestError("error decoding patch: json: cannot unmarshal " +
                             GoJsonKind(patch) +
                             " into Go value of type map[string]interface {}");
    }
    KMOCK_RETURN_IF_ERROR(CheckDepth(patch, "the patch"));
    KMOCK_RETURN_IF_ERROR(CheckDepth(original, "the object"));
    json patch_copy = patch;
    if (!original.is_object()) {
      PruneNulls(patch_copy);
      return patch_copy;
    }
    json doc = original;
    MergeDocs(doc, patch_copy);
    return doc;
  } catch (const std::exception& e) {
    return InternalError(std::string("applying merge patch: ") + e.what());
  }
}

}  // namespace kmock::patch
