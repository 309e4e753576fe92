// The declarative schema of every type we serve: fields, their JSON names,
// types, protobuf numbers, patch strategies, list types and descriptions.
//
// The type definitions live as data in api/types/*.yaml; the build turns
// them into an embedded JSON document that Schema::LoadBuiltin() parses
// into an instance. Readers are given the schema of what they read: the
// catalog gives every resource a pointer to the schema of its types
// (ResourceInfo::schema), so a kind added while the server runs brings a
// schema of its own, and the registry, body decoding, patching and the
// field manager read it from there. From this one source come OpenAPI
// v2/v3 (what `kubectl apply` checks and `kubectl explain` prints),
// unknown-field detection, strategic merge patch (merge keys and
// strategies) and protobuf decoding (field numbers).
//
// Schema::Builtin() is the compiled-in types parsed once, a constant like
// the embedded text itself. Main loads the built-in catalog from it; the
// paths that concern built-in kinds only read it directly: api/typed_json
// encodes an object by its apiVersion and kind with it where no resource
// is at hand (Status, Table, list and watch frames; custom objects are
// written with sorted keys, as kube-apiserver writes unstructured
// objects), protobuf bodies decode with it (custom resources refuse
// protobuf), every scale subresource speaks its autoscaling/v1 Scale, and a
// built-in kind's own code may read its types (a pod's volume sources).
//
// Thread safety: a Schema is filled by LoadJson before it is shared and is
// immutable afterwards; every const accessor is safe from any thread.
#ifndef KMOCK_API_SCHEMA_H_
#define KMOCK_API_SCHEMA_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

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
  Schema() = default;
  Schema(const Schema&) = delete;
  Schema& operator=(const Schema&) = delete;

  // The compiled-in schema, as a new instance. Fails only if the embedded
  // data is bad (a unit test loads it, so that never ships).
  static Result<std::unique_ptr<Schema>> LoadBuiltin();
  // The compiled-in schema parsed once (see the top of this file for who
  // may use it). Aborts if the embedded data is bad.
  static const Schema& Builtin();

  // nullptr if unknown.
  const Type* Find(std::string_view name) const;
  const std::map<std::string, Type, std::less<>>& types() const {
    return types_;
  }

  // Builds a schema from the JSON text the build embeds. Returns an empty
  // string on success, else what is wrong.
  std::string LoadJson(std::string_view json_text);

  // A structure derived from the whole schema by a module that reads it on
  // hot paths (json_encode.cc's encoding plans): made by `make` on the
  // first call, kept with the schema and freed with it.
  class Derived {
   public:
    virtual ~Derived() = default;
  };
  const Derived& EncodePlans(
      const std::function<std::unique_ptr<Derived>(const Schema&)>& make) const;

 private:
  void MarkDefaults();

  std::map<std::string, Type, std::less<>> types_;
  mutable std::once_flag encode_plans_once_;
  mutable std::unique_ptr<Derived> encode_plans_;
};

}  // namespace kmock::api

#endif  // KMOCK_API_SCHEMA_H_
