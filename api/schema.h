// The declarative schema of every type we serve: fields, their JSON names,
// types, protobuf numbers, patch strategies, list types and descriptions.
//
// The type definitions live as data in api/types/*.yaml; the build turns
// them into an embedded JSON document that Schema::Get() loads once. From
// this one source come OpenAPI v2/v3 (what `kubectl apply` checks and
// `kubectl explain` prints), unknown-field detection, strategic merge patch
// (merge keys and strategies) and protobuf decoding (field numbers).
//
// Thread safety: Schema::Get() is initialised once (thread-safe static) and
// is immutable afterwards; every accessor is const and safe from any thread.
#ifndef KMOCK_API_SCHEMA_H_
#define KMOCK_API_SCHEMA_H_

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace kmock::api {

// The JSON shape of a field or of a type.
enum class ValueKind {
  kString,
  kInteger,
  kNumber,
  kBoolean,
  kObject,  // a struct: a named Type with fields (see Field::ref)
  kArray,   // elements described by Field::items
  kMap,     // string keys; values described by Field::items
  kAny,     // anything: preserved as is, never checked field by field
};

// How an element of an array or a value of a map looks.
struct ElementSchema {
  ValueKind kind = ValueKind::kString;
  std::string format;  // "int32", "int64", "byte", ...
  std::string ref;     // the Type name when kind == kObject
};

struct Field {
  std::string name;  // JSON name, e.g. "containers"
  int proto = 0;     // protobuf field number (0 = none)
  ValueKind kind = ValueKind::kString;
  std::string format;   // "int32", "int64", "double", "byte", "date-time", ...
  std::string ref;      // the Type name when kind == kObject
  ElementSchema items;  // for kArray and kMap
  std::string description;  // one line, in our own words
  bool required = false;
  std::vector<std::string> enum_values;
  // Strategic merge patch: "merge", "replace", "retainKeys" or
  // "merge,retainKeys"; empty = the default for the kind of field.
  std::string patch_strategy;
  std::string patch_merge_key;  // e.g. "name" for containers
  // Server-side apply list semantics: "atomic", "set" or "map"; map keys.
  std::string list_type;
  std::vector<std::string> list_map_keys;
  // "atomic" or "granular" for maps and structs (x-kubernetes-map-type).
  std::string map_type;
  // The value the server fills in when the field is absent (null: none).
  nlohmann::json default_value;
};

struct Type {
  std::string name;  // OpenAPI definition name, e.g. "io.k8s.api.core.v1.Pod"
  std::string description;
  // Most types are objects with fields. Some are scalars on the wire with
  // their own protobuf message (Quantity, Time, IntOrString, MicroTime):
  // kind says the JSON shape, proto_shape names the protobuf encoding.
  ValueKind kind = ValueKind::kObject;
  std::string format;       // for scalar types: "int-or-string", "date-time"
  std::string proto_shape;  // "", "quantity", "time", "microtime",
                            // "intorstring", "rawextension"
  std::vector<Field> fields;
  std::vector<std::string> required;  // JSON names of required fields
  bool preserve_unknown_fields = false;
  // Whether this type or any type it reaches has a field with a default.
  bool defaults_below = false;
  // Set on top-level kinds: group, version, kind
  // (x-kubernetes-group-version-kind).
  std::string gvk_group, gvk_version, gvk_kind;

  // nullptr if no such field.
  const Field* FindField(std::string_view json_name) const;
  const Field* FindFieldByProto(int number) const;
};

class Schema {
 public:
  // The compiled-in schema. Aborts at start-up if the embedded data is bad
  // (a unit test checks it, so that never ships).
  static const Schema& Get();

  // nullptr if unknown.
  const Type* Find(std::string_view name) const;
  const std::map<std::string, Type, std::less<>>& types() const {
    return types_;
  }

  // Builds a schema from the JSON text the build embeds. Returns an empty
  // string on success, else what is wrong.
  std::string LoadJson(std::string_view json_text);

 private:
  void MarkDefaults();

  std::map<std::string, Type, std::less<>> types_;
};

}  // namespace kmock::api

#endif  // KMOCK_API_SCHEMA_H_
