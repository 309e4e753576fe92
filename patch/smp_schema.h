// Schema lookups for strategic merge patch: what api/schema.h says about
// one key of an object being merged (its patch strategy, its merge key and
// the schema of the value or of each list element).
//
// A SchemaNode describes one JSON object: a struct type (fields known), a
// map whose values share one element schema, or nothing (no metadata: the
// value of an `any` field, an unknown field, a nullptr root). Without
// metadata every list is replaced and every map merged, which is JSON merge
// patch plus the directives.
//
// Thread safety: SchemaNode is an immutable view; it borrows the resolver
// and the api::Type objects, which must outlive it.
#ifndef KMOCK_PATCH_SMP_SCHEMA_H_
#define KMOCK_PATCH_SMP_SCHEMA_H_

#include <functional>
#include <string>
#include <string_view>

#include "api/schema.h"

namespace kmock::patch {

// Resolves a type name (Field::ref, ElementSchema::ref); nullptr if unknown.
using TypeResolver = std::function<const api::Type*(std::string_view)>;

struct FieldMeta;

class SchemaNode {
 public:
  SchemaNode() = default;  // no metadata
  // The node of an object of `type` (nullptr: no metadata).
  static SchemaNode ForType(const TypeResolver* resolver,
                            const api::Type* type);

  // Metadata of `key` in this object.
  FieldMeta Lookup(std::string_view key) const;

 private:
  const TypeResolver* resolver_ = nullptr;
  const api::Type* type_ = nullptr;
  const api::ElementSchema* map_values_ = nullptr;  // set for kMap fields
};

struct FieldMeta {
  // "merge", "replace" or "" (the default: merge maps, replace lists);
  // "retainKeys" is dropped since it only shapes client-side diffs.
  std::string strategy;
  std::string merge_key;
  // For an object value: its node. For a list: the node of each element.
  SchemaNode value;
};

}  // namespace kmock::patch

#endif  // KMOCK_PATCH_SMP_SCHEMA_H_
