#include "fieldmanager/type_node.h"

#include <set>

namespace kmock::fieldmanager {

using nlohmann::json;

namespace {

// Struct types upstream declares atomic (+structType=atomic): owned and
// replaced as a whole.
bool IsAtomicStruct(std::string_view name) {
  static const std::set<std::string_view> kAtomic = {
      "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
      "io.k8s.api.core.v1.LocalObjectReference",
      "io.k8s.api.core.v1.ObjectReference",
      "io.k8s.api.core.v1.TypedLocalObjectReference",
      "io.k8s.api.core.v1.TypedObjectReference",
      "io.k8s.api.core.v1.ObjectFieldSelector",
      "io.k8s.api.core.v1.ResourceFieldSelector",
      "io.k8s.api.core.v1.ConfigMapKeySelector",
      "io.k8s.api.core.v1.SecretKeySelector",
      "io.k8s.api.core.v1.ConfigMapEnvSource",
      "io.k8s.api.core.v1.SecretEnvSource",
      "io.k8s.api.core.v1.NodeSelector",
      "io.k8s.api.core.v1.NodeSelectorTerm",
      "io.k8s.api.core.v1.TopologySelectorTerm",
      "io.k8s.api.core.v1.ScopeSelector",
  };
  return kAtomic.count(name) > 0;
}

const api::Type* Resolve(const TypeResolver* resolver, const std::string& ref) {
  if (resolver == nullptr || !*resolver || ref.empty()) return nullptr;
  return (*resolver)(ref);
}

bool HasMergeStrategy(const std::string& strategy) {
  size_t start = 0;
  while (start <= strategy.size()) {
    size_t comma = strategy.find(',', start);
    std::string part = strategy.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    if (part == "merge") return true;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return false;
}

}  // namespace

TypeNode TypeNode::Leaf() {
  TypeNode n;
  n.kind_ = Kind::kLeaf;
  return n;
}

TypeNode TypeNode::ForType(const TypeResolver* resolver,
                           const api::Type* type) {
  TypeNode n;
  n.resolver_ = resolver;
  if (type == nullptr) return n;
  if (type->kind == api::ValueKind::kAny) return n;
  if (type->kind != api::ValueKind::kObject || IsAtomicStruct(type->name)) {
    n.kind_ = Kind::kLeaf;
    return n;
  }
  n.kind_ = Kind::kStruct;
  n.type_ = type;
  return n;
}

TypeNode TypeNode::FromElement(const TypeResolver* resolver,
                               const api::ElementSchema& element) {
  switch (element.kind) {
    case api::ValueKind::kObject:
      return ForType(resolver, Resolve(resolver, element.ref));
    case api::ValueKind::kAny: {
      TypeNode n;
      n.resolver_ = resolver;
      return n;
    }
    default:
      return Leaf();
  }
}

TypeNode TypeNode::FromField(const TypeResolver* resolver,
                             const api::Field& field) {
  TypeNode n;
  n.resolver_ = resolver;
  switch (field.kind) {
    case api::ValueKind::kObject:
      if (field.map_type == "atomic") return Leaf();
      return ForType(resolver, Resolve(resolver, field.ref));
    case api::ValueKind::kMap:
      if (field.map_type == "atomic") return Leaf();
      n.kind_ = Kind::kMap;
      n.element_ = field.items;
      return n;
    case api::ValueKind::kArray: {
      std::string list_type = field.list_type;
      std::vector<std::string> keys = field.list_map_keys;
      if (list_type.empty() && HasMergeStrategy(field.patch_strategy)) {
        if (field.patch_merge_key.empty()) {
          list_type = "set";
        } else {
          list_type = "map";
          keys = {field.patch_merge_key};
        }
      }
      if (list_type == "map" && keys.empty() && !field.patch_merge_key.empty())
        keys = {field.patch_merge_key};
      if (list_type == "map" && !keys.empty()) {
        n.kind_ = Kind::kKeyedList;
        n.keys_ = std::move(keys);
      } else if (list_type == "set") {
        n.kind_ = Kind::kSetList;
      } else {
        return Leaf();
      }
      n.element_ = field.items;
      return n;
    }
    case api::ValueKind::kAny:
      return n;
    default:
      return Leaf();
  }
}

TypeNode::Kind TypeNode::KindFor(const json& value) const {
  switch (kind_) {
    case Kind::kUntyped:
      return value.is_object() ? Kind::kMap : Kind::kLeaf;
    case Kind::kStruct:
    case Kind::kMap:
      return value.is_object() ? kind_ : Kind::kLeaf;
    case Kind::kKeyedList:
    case Kind::kSetList:
      return value.is_array() ? kind_ : Kind::kLeaf;
    default:
      return Kind::kLeaf;
  }
}

TypeNode TypeNode::Child(std::string_view key, bool* is_field) const {
  if (is_field != nullptr) *is_field = false;
  if (kind_ == Kind::kMap) return FromElement(resolver_, element_);
  if (kind_ == Kind::kStruct && type_ != nullptr) {
    const api::Field* f = type_->FindField(key);
    if (f != nullptr) {
      if (is_field != nullptr) *is_field = true;
      return FromField(resolver_, *f);
    }
  }
  TypeNode untyped;
  untyped.resolver_ = resolver_;
  return untyped;
}

TypeNode TypeNode::Element() const { return FromElement(resolver_, element_); }

Result<std::string> TypeNode::ItemElement(const json& item) const {
  if (kind_ == Kind::kSetList) return "v:" + item.dump();
  if (kind_ != Kind::kKeyedList) {
    return Status(StatusCode::kInternal, "not an associative list");
  }
  if (!item.is_object()) {
    return Status(StatusCode::kInternal,
                  "associative list with keys may not have non-map elements");
  }
  json key = json::object();
  for (const std::string& k : keys_) {
    auto it = item.find(k);
    if (it == item.end() || it->is_null()) {
      if (k == "protocol") {
        key[k] = "TCP";
        continue;
      }
      return Status(StatusCode::kInternal,
                    "associative list with keys has an element that omits key "
                    "field \"" +
                        k + "\" (and doesn't have default value)");
    }
    key[k] = *it;
  }
  return "k:" + key.dump();
}

}  // namespace kmock::fieldmanager
