// JSON Patch (RFC 6902), the body of application/json-patch+json PATCH
// requests, applied as kube-apiserver v1.33 applies it.
//
// kube-apiserver decodes the body twice (a strict decode into its own
// operation struct, then gopkg.in/evanphx/json-patch.v4) and applies the
// operations with that library. Facts we reproduce (checked against
// k8s.io/apiserver pkg/endpoints/handlers/patch.go and the vendored
// json-patch.v4 patch.go):
//  - A body that is not an array: 400 BadRequest "error decoding patch: json:
//    cannot unmarshal object into Go value of type []handlers.jsonPatchOp";
//    an op/path/from that is not a string: 400 "error decoding patch: json:
//    cannot unmarshal number into Go struct field jsonPatchOp.path of type
//    string". A null body is an empty patch.
//  - More than 10000 operations: 413 "The allowed maximum operations in a
//    JSON patch is 10000, got N".
//  - Any failing operation, e.g. a failed test ("testing value /x failed:
//    test failed"), a missing path ("replace operation does not apply: doc
//    is missing path: /a/b: missing value") or an unknown op ("Unexpected
//    kind: foo"): 422 reason Invalid with the generic message "the server
//    rejected our request due to an error in our request" (the library text
//    is not sent). ApplyJsonPatchOperations returns that text for logs and
//    tests.
//  - Library quirks that clients can observe and that we keep: "replace" of
//    a missing key inside an existing object adds the key (v4 does not check
//    object keys); "test" of a missing or null location passes when the
//    value is null; "copy" from a missing object key copies null; a "test"
//    object matches when every key of the document's object is in the test
//    value with an equal value (extra keys in the test value are ignored);
//    negative array indices count from the end; "-" appends for "add".
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_PATCH_JSON_PATCH_H_
#define KMOCK_PATCH_JSON_PATCH_H_

#include <nlohmann/json.hpp>
#include <string>

#include "common/status.h"

namespace kmock::patch {

// kube-apiserver's maxJSONPatchOperations.
inline constexpr size_t kMaxJsonPatchOperations = 10000;

// Applies the parsed patch body to original and returns the new document,
// or the Status kube-apiserver would return. Never throws.
Result<nlohmann::json> ApplyJsonPatch(const nlohmann::json& original,
                                      const nlohmann::json& patch);

// The application step alone: applies the operations (an array; elements
// that are not objects count as operations of unknown kind) to *doc in
// order. Returns "" on success, else the json-patch library's error text;
// *doc is then partly modified. Never throws.
std::string ApplyJsonPatchOperations(nlohmann::json* doc,
                                     const nlohmann::json& operations);

}  // namespace kmock::patch

#endif  // KMOCK_PATCH_JSON_PATCH_H_
