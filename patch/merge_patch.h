// JSON Merge Patch (RFC 7386), the body of application/merge-patch+json
// PATCH requests, applied as kube-apiserver v1.33 applies it (its strict
// decode into map[string]interface{}, then gopkg.in/evanphx/json-patch.v4
// MergePatch).
//
// Semantics: null deletes a key; an object merges into an object
// recursively; anything else replaces. Where the patch value is copied into
// the document (new key, or the document's value is not an object), nulls
// inside its objects are dropped, also inside objects nested in arrays; nulls
// that are array elements stay. A patch object replacing a non-object keeps
// that rule; a non-object patch value replacing an object is copied as is.
//
// Errors (k8s.io/apiserver pkg/endpoints/handlers/patch.go):
//  - a body that is not an object: 400 BadRequest "error decoding patch:
//    json: cannot unmarshal array into Go value of type
//    map[string]interface {}" (object/array/string/number/bool);
//  - a null body: the library's "Invalid JSON Patch", passed through as a
//    reason-less 500 (see patch_status.h).
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_PATCH_MERGE_PATCH_H_
#define KMOCK_PATCH_MERGE_PATCH_H_

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace kmock::patch {

// Applies the parsed patch body to original. If original is not an object
// the result is the patch itself (nulls dropped), as the library does.
// Never throws.
Result<nlohmann::json> ApplyMergePatch(const nlohmann::json& original,
                                       const nlohmann::json& patch);

}  // namespace kmock::patch

#endif  // KMOCK_PATCH_MERGE_PATCH_H_
