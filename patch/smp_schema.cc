#include "patch/smp_schema.h"

#include <vector>

namespace kmock::patch {
namespace {

const api::Field* FindField(const api::Type& type, std::string_view name) {
  for (const api::Field& f : type.fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

// "merge,retainKeys" -> "merge"; "retainKeys" -> "".
std::string MainStrategy(std::string_view strategies) {
  std::string result;
  size_t start = 0;
  while (start <= strategies.size()) {
    size_t comma = strategies.find(',', start);
    std::string_view part = strategies.substr(
        start, comma == std::string_view::npos ? std::string_view::npos
                                               : comma - start);
    if (!part.empty() && part != "retainKeys" && result.empty()) {
      result = std::string(part);
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return result;
}

const api::Type* Resolve(const TypeResolver* resolver, const std::string& ref) {
  if (resolver == nullptr || !*resolver || ref.empty()) return nullptr;
  return (*resolver)(ref);
}

// The node of a value described by an element schema.
SchemaNode ElementNode(const TypeResolver* resolver,
                       const api::ElementSchema& element) {
  if (element.kind == api::ValueKind::kObject) {
    return SchemaNode::ForType(resolver, Resolve(resolver, element.ref));
  }
  return SchemaNode();
}

}  // namespace

SchemaNode SchemaNode::ForType(const TypeResolver* resolver,
                               const api::Type* type) {
  SchemaNode node;
  if (type == nullptr || type->kind != api::ValueKind::kObject) return node;
  node.resolver_ = resolver;
  node.type_ = type;
  return node;
}

FieldMeta SchemaNode::Lookup(std::string_view key) const {
  FieldMeta meta;
  if (map_values_ != nullptr) {
    meta.value = ElementNode(resolver_, *map_values_);
    return meta;
  }
  if (type_ == nullptr) return meta;
  const api::Field* field = FindField(*type_, key);
  if (field == nullptr) return meta;
  meta.strategy = MainStrategy(field->patch_strategy);
  meta.merge_key = field->patch_merge_key;
  switch (field->kind) {
    case api::ValueKind::kObject:
      meta.value = ForType(resolver_, Resolve(resolver_, field->ref));
      break;
    case api::ValueKind::kArray:
      meta.value = ElementNode(resolver_, field->items);
      break;
    case api::ValueKind::kMap:
      meta.value.resolver_ = resolver_;
      meta.value.map_values_ = &field->items;
      break;
    default:
      break;
  }
  return meta;
}

}  // namespace kmock::patch
