// Strategic merge patch, the body of application/strategic-merge-patch+json
// PATCH requests (and of `kubectl apply` on existing objects), applied as
// kube-apiserver v1.33 applies it (apimachinery pkg/util/strategicpatch,
// StrategicMergeMapPatch with MergeParallelList and IgnoreUnmatchedNulls).
//
// The schema drives it: a list field with patch strategy "merge" and a merge
// key (containers by name, ports by containerPort, env by name, volumes,
// conditions by type) merges element-wise; a "merge" list of scalars
// (finalizers) merges as a set; other lists are replaced; maps merge
// recursively unless their strategy is "replace"; null deletes. Directives:
// `$patch: replace|delete` in maps and keyed-list elements,
// `$setElementOrder/<list>`, `$retainKeys`, `$deleteFromPrimitiveList/<list>`.
// Values copied in whole (a key absent from the original) lose their null
// members and any map carrying `$patch`. Values without schema metadata
// (fields of `any` type, unknown fields) merge like JSON merge patch.
// Merged lists are ordered as upstream orders them: $setElementOrder first,
// then the patch's order, then the live order.
//
// Errors, as kube-apiserver reports them:
//  - a body that is not an object: 400 "json: cannot unmarshal array into Go
//    value of type map[string]interface {}"; a null body changes nothing;
//  - malformed directives: 400 "invalid patch format of retainKeys",
//    "invalid patch format of primitive list", "invalid patch format of
//    setElementOrder list";
//  - lists of lists: 422 (the generic "rejected" message);
//  - everything else is a Go error the apiserver passes through: 500 with
//    no reason (patch_status.h), e.g. "map: map[image:nginx] does not
//    contain declared merge key: name", "unknown patch type: foo in map:
//    map[$patch:foo]", "merging lists cannot yet be specified in the patch".
// Unlike upstream, a key the schema does not know is merged without
// metadata instead of failing ("unable to find api field in struct ...").
//
// Thread safety: pure functions; safe from any thread. The schema objects
// are only read.
#ifndef KMOCK_PATCH_STRATEGIC_MERGE_PATCH_H_
#define KMOCK_PATCH_STRATEGIC_MERGE_PATCH_H_

#include <nlohmann/json.hpp>

#include "api/schema.h"
#include "common/status.h"
#include "patch/smp_schema.h"

namespace kmock::patch {

// Applies patch to original, whose type is root (nullptr: no metadata);
// nested types are looked up in schema by name. Never throws.
Result<nlohmann::json> ApplyStrategicMergePatch(const nlohmann::json& original,
                                                const nlohmann::json& patch,
                                                const api::Schema& schema,
                                                const api::Type* root);

// The same with any resolver of type names (tests build their own types).
Result<nlohmann::json> ApplyStrategicMergePatch(const nlohmann::json& original,
                                                const nlohmann::json& patch,
                                                const TypeResolver& resolver,
                                                const api::Type* root);

}  // namespace kmock::patch

#endif  // KMOCK_PATCH_STRATEGIC_MERGE_PATCH_H_
