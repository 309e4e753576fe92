// TypeNode: what the schema (api/schema.h) says about one value for
// server-side apply, in structured-merge-diff's terms: a scalar or atomic
// leaf, a struct (named fields), a granular map, an associative list keyed
// by its map keys, a set list, or an untyped value (an `any` field: objects
// merge key by key, lists are atomic).
//
// Lists without an explicit list type are derived as upstream derives them
// from the patch strategy: "merge" with a merge key is a map keyed by it,
// "merge" without one a set, anything else atomic. A few struct types that
// upstream marks atomic as a whole (LabelSelector, object references) are
// known here by name.
//
// Thread safety: an immutable view; it borrows the resolver and the
// api::Type objects, which must outlive it.
#ifndef KMOCK_FIELDMANAGER_TYPE_NODE_H_
#define KMOCK_FIELDMANAGER_TYPE_NODE_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/schema.h"
#include "common/status.h"
#include "patch/smp_schema.h"

namespace kmock::fieldmanager {

using patch::TypeResolver;

class TypeNode {
 public:
  enum class Kind { kLeaf, kStruct, kMap, kKeyedList, kSetList, kUntyped };

  TypeNode() = default;  // untyped
  // The node of an object of `type` (nullptr: untyped).
  static TypeNode ForType(const TypeResolver* resolver, const api::Type* type);
  static TypeNode Leaf();

  Kind kind() const { return kind_; }
  const api::Type* type() const { return type_; }  // for kStruct
  // The kind this node has for a concrete value: kUntyped resolves to kMap
  // for objects and kLeaf otherwise; a struct or map holding a non-object
  // (or a list node holding a non-array) is a leaf.
  Kind KindFor(const nlohmann::json& value) const;

  // For kStruct, kMap and kUntyped: the node of key's value; *is_field
  // tells whether key is a declared struct field.
  TypeNode Child(std::string_view key, bool* is_field = nullptr) const;
  // For lists: the node of each item.
  TypeNode Element() const;
  const std::vector<std::string>& keys() const { return keys_; }

  // The path element of a list item: "k:{...}" for keyed lists (a missing
  // "protocol" key takes its default "TCP"), "v:<json>" for sets. Error
  // text is structured-merge-diff's.
  Result<std::string> ItemElement(const nlohmann::json& item) const;

 private:
  static TypeNode FromField(const TypeResolver* resolver,
                            const api::Field& field);
  static TypeNode FromElement(const TypeResolver* resolver,
                              const api::ElementSchema& element);

  Kind kind_ = Kind::kUntyped;
  const TypeResolver* resolver_ = nullptr;
  const api::Type* type_ = nullptr;  // kStruct
  api::ElementSchema element_;       // kMap and lists
  std::vector<std::string> keys_;    // kKeyedList
};

}  // namespace kmock::fieldmanager

#endif  // KMOCK_FIELDMANAGER_TYPE_NODE_H_
