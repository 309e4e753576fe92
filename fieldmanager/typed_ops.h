// Schema-aware operations on JSON objects for server-side apply, following
// structured-merge-diff: the field set of a value, the comparison of two
// values (added, modified, removed paths), the merge of an apply
// configuration into a live object, and the removal of paths.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_FIELDMANAGER_TYPED_OPS_H_
#define KMOCK_FIELDMANAGER_TYPED_OPS_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"
#include "fieldmanager/field_set.h"
#include "fieldmanager/type_node.h"

namespace kmock::fieldmanager {

// The paths of value as the schema types it: every scalar, atomic list and
// atomic map, every list item (a member even when it has children), every
// map key (not struct fields, unless null or an empty object).
// strict: a keyed-list item without its keys, a duplicate item, or a
// field its struct does not declare is an error (apply configurations, as
// structured-merge-diff types them: ".spec.foo: field not declared in
// schema"); otherwise such items are skipped.
Result<FieldSet> ToFieldSet(const nlohmann::json& value, const TypeNode& type,
                            bool strict);

struct Comparison {
  FieldSet added, modified, removed;
};

// What changed from lhs to rhs. Containers absent on one side count as
// added or removed themselves (the `.` of fieldsV1). The top-level members
// named in skip ("spec") are left out, as if equal: for a write whose
// caller drops every path below them anyway (reset fields).
Comparison Compare(const nlohmann::json& lhs, const nlohmann::json& rhs,
                   const TypeNode& type,
                   const std::vector<std::string>& skip = {});

// Merges an apply configuration into live: objects merge key by key,
// keyed lists item by item, set lists as unions, everything else is
// replaced. A null in the configuration removes the field.
nlohmann::json Merge(const nlohmann::json& live, const nlohmann::json& config,
                     const TypeNode& type);

// Removes from value every member path of set (with what is below it).
void RemoveItems(nlohmann::json& value, const FieldSet& set,
                 const TypeNode& type);

// The set plus every named struct field on the way to its members.
FieldSet EnsureNamedFieldsAreMembers(const FieldSet& set, const TypeNode& type);

// What an empty object of the root type looks like once encoded: the
// struct fields Go always writes (metadata, spec, a template's metadata and
// spec, ...) as {} and the non-omitempty lists and pointers as null. The
// "old object" of a create.
nlohmann::json EmptyObject(const TypeNode& root);

}  // namespace kmock::fieldmanager

#endif  // KMOCK_FIELDMANAGER_TYPED_OPS_H_
