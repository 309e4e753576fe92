#include "api/decode_check.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include "common/go_base64.h"

namespace kmock::api {

namespace {

using nlohmann::json;

constexpr char kQuantityFormatError[] =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

// "io.k8s.api.core.v1.Container" -> "Container".
std::string ShortName(const std::string& type_name) {
  return type_name.substr(type_name.rfind('.') + 1);
}

// "io.k8s.api.core.v1.Container" -> "v1.Container": the Go spelling, whose
// package is the last path segment of the Go package.
std::string GoTypeName(const std::string& type_name) {
  auto last = type_name.rfind('.');
  if (last == std::string::npos || last == 0) return type_name;
  auto prev = type_name.rfind('.', last - 1);
  return type_name.substr(prev == std::string::npos ? 0 : prev + 1);
}

std::string GoScalar(ValueKind kind, const std::string& format) {
  switch (kind) {
    case ValueKind::kString:
      return format == "byte" ? "[]uint8" : "string";
    case ValueKind::kInteger:
      return format.empty() ? "int" : format;  // "int32", "int64"
    case ValueKind::kNumber:
      return "float64";
    case ValueKind::kBoolean:
      return "bool";
    default:
      return "interface {}";
  }
}

std::string GoElementType(const ElementSchema& e) {
  if (!e.ref.empty()) return GoTypeName(e.ref);
  return GoScalar(e.kind, e.format);
}

std::string GoFieldType(const Field& f) {
  switch (f.kind) {
    case ValueKind::kArray:
      return "[]" + GoElementType(f.items);
    case ValueKind::kMap:
      return "map[string]" + GoElementType(f.items);
    default:
      if (!f.ref.empty()) return GoTypeName(f.ref);
      return GoScalar(f.kind, f.format);
  }
}

// How Go's decoder names a JSON value in its errors.
std::string JsonValueName(const json& v) {
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "number";
}

bool FitsInteger(const json& v, const std::string& format) {
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (format == "int32") return u <= std::numeric_limits<int32_t>::max();
    return u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  }
  if (!v.is_number_integer()) return false;
  int64_t i = v.get<int64_t>();
  if (format == "int32") {
    return i >= std::numeric_limits<int32_t>::min() &&
           i <= std::numeric_limits<int32_t>::max();
  }
  return true;
}

class TypeChecker {
 public:
  explicit TypeChecker(const Schema& schema) : schema_(schema) {}

  std::optional<std::string> CheckObject(const json& obj, const Type& type,
                                         const std::string& path) {
    for (const auto& [key, value] : obj.items()) {
      const Field* f = type.FindField(key);
      if (!f) continue;  // unknown fields are reported separately
      std::string fpath = path.empty() ? key : path + "." + key;
      auto err =
          CheckValue(value, f->kind, f->format, f->ref, ShortName(type.name),
                     fpath, GoFieldType(*f), &f->items);
      if (err) return err;
    }
    return std::nullopt;
  }

 private:
  std::optional<std::string> Mismatch(const json& v, const std::string& strct,
                                      const std::string& path,
                                      const std::string& go_type) {
    // Go names a number by its literal only when it fails to fit an
    // integer target (1.5 or 3000000000 into int32).
    std::string value = JsonValueName(v);
    bool int_target = go_type == "int" || go_type.rfind("int", 0) == 0;
    if (v.is_number() && int_target) value = "number " + v.dump();
    return "json: cannot unmarshal " + value + " into Go struct field " +
           strct + "." + path + " of type " + go_type;
  }

  // `go_type` is how Go names the target type; `items` is set for arrays and
  // maps.
  std::optional<std::string> CheckValue(
      const json& v, ValueKind kind, const std::string& format,
      const std::string& ref, const std::string& strct, const std::string& path,
      const std::string& go_type, const ElementSchema* items) {
    if (v.is_null()) return std::nullopt;
    const Type* named = ref.empty() ? nullptr : schema_.Find(ref);
    if (named && !named->proto_shape.empty()) {
      const std::string& shape = named->proto_shape;
      if (shape == "quantity") {
        if (v.is_string() || v.is_number()) return std::nullopt;
        return std::string(kQuantityFormatError);
      }
      if (shape == "intorstring") {
        if (v.is_string() || (v.is_number() && FitsInteger(v, "int32"))) {
          return std::nullopt;
        }
        return Mismatch(v, strct, path, "int32");
      }
      if (shape == "time" || shape == "microtime") {
        if (v.is_string()) return std::nullopt;
        return Mismatch(v, strct, path, "string");
      }
      return std::nullopt;  // rawextension: anything goes
    }
    switch (kind) {
      case ValueKind::kString:
        if (!v.is_string()) return Mismatch(v, strct, path, go_type);
        if (format == "byte") {
          // []byte reads base64, as Go's decoder does.
          size_t at = 0;
          if (!GoBase64Decode(v.get_ref<const std::string&>(), &at)) {
            return GoBase64ErrorText(at);
          }
        }
        return std::nullopt;
      case ValueKind::kInteger:
        if (!v.is_number() || !FitsInteger(v, format)) {
          return Mismatch(v, strct, path, go_type);
        }
        return std::nullopt;
      case ValueKind::kNumber:
        if (!v.is_number()) return Mismatch(v, strct, path, go_type);
        return std::nullopt;
      case ValueKind::kBoolean:
        if (!v.is_boolean()) return Mismatch(v, strct, path, go_type);
        return std::nullopt;
      case ValueKind::kObject: {
        if (!v.is_object()) return Mismatch(v, strct, path, go_type);
        if (!named || named->preserve_unknown_fields) return std::nullopt;
        return CheckObject(v, *named, path);
      }
      case ValueKind::kArray:
      case ValueKind::kMap: {
        bool is_array = kind == ValueKind::kArray;
        if (is_array ? !v.is_array() : !v.is_object()) {
          return Mismatch(v, strct, path, go_type);
        }
        std::string elem_type = GoElementType(*items);
        for (const auto& e : v) {
          auto err = CheckValue(e, items->kind, items->format, items->ref,
                                strct, path, elem_type, nullptr);
          if (err) return err;
        }
        return std::nullopt;
      }
      case ValueKind::kAny:
        return std::nullopt;
    }
    return std::nullopt;
  }

  const Schema& schema_;
};

// Collects the paths of unknown fields of `obj` (a `const json` or a
// `json`); when J is mutable, also erases them, so that what is stored is
// what the schema knows, as Go's decoder drops what its types lack.
template <typename J>
void CollectUnknown(J& obj, const Type& type, const Schema& schema,
                    const std::string& path, bool root,
                    std::vector<std::string>* out);

template <typename J>
void CollectValue(J& v, ValueKind kind, const std::string& ref,
                  const ElementSchema* items, const Schema& schema,
                  const std::string& path, std::vector<std::string>* out) {
  switch (kind) {
    case ValueKind::kObject: {
      if (!v.is_object()) return;
      const Type* t = schema.Find(ref);
      if (t && t->kind == ValueKind::kObject && !t->preserve_unknown_fields) {
        CollectUnknown(v, *t, schema, path, false, out);
      }
      return;
    }
    case ValueKind::kArray: {
      if (!v.is_array()) return;
      for (size_t i = 0; i < v.size(); ++i) {
        CollectValue(v[i], items->kind, items->ref, nullptr, schema,
                     path + "[" + std::to_string(i) + "]", out);
      }
      return;
    }
    case ValueKind::kMap: {
      if (!v.is_object()) return;
      for (auto&& [key, value] : v.items()) {
        CollectValue(value, items->kind, items->ref, nullptr, schema,
                     path + "." + key, out);
      }
      return;
    }
    default:
      return;
  }
}

template <typename J>
void CollectUnknown(J& obj, const Type& type, const Schema& schema,
                    const std::string& path, bool root,
                    std::vector<std::string>* out) {
  constexpr bool kPrune = !std::is_const_v<J>;
  std::vector<std::string> erase;
  for (auto&& [key, value] : obj.items()) {
    std::string fpath = path.empty() ? key : path + "." + key;
    const Field* f = type.FindField(key);
    if (!f) {
      if (root && (key == "apiVersion" || key == "kind")) continue;
      out->push_back(fpath);
      if constexpr (kPrune) erase.push_back(key);
      continue;
    }
    CollectValue(value, f->kind, f->ref, &f->items, schema, fpath, out);
  }
  if constexpr (kPrune) {
    for (const std::string& key : erase) obj.erase(key);
  }
}

template <typename J>
std::vector<std::string> CollectUnknownFields(J& obj, const Type& root,
                                              const Schema& schema) {
  std::vector<std::string> out;
  if (obj.is_object() && !root.preserve_unknown_fields &&
      root.kind == ValueKind::kObject) {
    CollectUnknown(obj, root, schema, "", true, &out);
  }
  return out;
}

Status CheckFindings(std::vector<std::string> unknown, const std::string& kind,
                     const std::string& version,
                     const std::string& field_validation,
                     std::vector<std::string>* warnings,
                     const BodyFindings* findings) {
  if (field_validation == "Ignore") return Status::Ok();
  std::vector<std::string> errors =
      StrictDecodingErrors(unknown, findings ? *findings : BodyFindings{});
  if (errors.empty()) return Status::Ok();
  if (field_validation == "Strict") {
    return StrictDecodingError(kind, version, errors);
  }
  if (warnings) {
    for (auto& w : StrictDecodingWarnings(errors))
      warnings->push_back(std::move(w));
  }
  return Status::Ok();
}

}  // namespace

std::vector<std::string> UnknownFields(const nlohmann::json& obj,
                                       const Type& root, const Schema& schema) {
  return CollectUnknownFields(obj, root, schema);
}

std::vector<std::string> PruneUnknownFields(nlohmann::json* obj,
                                            const Type& root,
                                            const Schema& schema) {
  return CollectUnknownFields(*obj, root, schema);
}

std::optional<std::string> FirstTypeError(const nlohmann::json& obj,
                                          const Type& root,
                                          const Schema& schema) {
  if (!obj.is_object() || root.kind != ValueKind::kObject) return std::nullopt;
  TypeChecker checker(schema);
  return checker.CheckObject(obj, root, "");
}

Status DecodeError(const std::string& kind, const std::string& version,
                   const std::string& detail) {
  return Status(StatusCode::kBadRequest, kind + " in version \"" + version +
                                             "\" cannot be handled as a " +
                                             kind + ": " + detail);
}

std::vector<std::string> StrictDecodingErrors(
    const std::vector<std::string>& unknown, const BodyFindings& findings) {
  std::vector<std::string> out;
  if (!findings.yaml_error.empty()) out.push_back(findings.yaml_error);
  for (const auto& path : unknown)
    out.push_back("unknown field \"" + path + "\"");
  for (const auto& path : findings.duplicate_fields) {
    bool inside_unknown =
        std::any_of(unknown.begin(), unknown.end(), [&](const std::string& u) {
          return path.compare(0, u.size(), u) == 0 &&
                 (path.size() == u.size() || path[u.size()] == '.' ||
                  path[u.size()] == '[');
        });
    if (!inside_unknown) out.push_back("duplicate field \"" + path + "\"");
  }
  return out;
}

Status StrictDecodingError(const std::string& kind, const std::string& version,
                           const std::vector<std::string>& errors) {
  std::string detail = "strict decoding error: ";
  for (size_t i = 0; i < errors.size(); ++i) {
    if (i > 0) detail += ", ";
    detail += errors[i];
  }
  return DecodeError(kind, version, detail);
}

std::vector<std::string> StrictDecodingWarnings(
    const std::vector<std::string>& errors) {
  static constexpr std::string_view kYamlPrefix = "yaml: unmarshal errors:\n";
  std::vector<std::string> out;
  for (const std::string& e : errors) {
    if (e.compare(0, kYamlPrefix.size(), kYamlPrefix) != 0) {
      out.push_back(e);
      continue;
    }
    // One warning per line, trimmed, as kube-apiserver splits go-yaml's
    // error.
    std::string_view rest = std::string_view(e).substr(kYamlPrefix.size());
    while (true) {
      size_t nl = rest.find('\n');
      std::string_view line = rest.substr(0, nl);
      while (!line.empty() &&
             std::isspace(static_cast<unsigned char>(line.front()))) {
        line.remove_prefix(1);
      }
      while (!line.empty() &&
             std::isspace(static_cast<unsigned char>(line.back()))) {
        line.remove_suffix(1);
      }
      out.emplace_back(line);
      if (nl == std::string_view::npos) break;
      rest.remove_prefix(nl + 1);
    }
  }
  return out;
}

std::vector<std::string> UnknownFieldWarnings(
    const std::vector<std::string>& unknown) {
  std::vector<std::string> out;
  out.reserve(unknown.size());
  for (const auto& path : unknown)
    out.push_back("unknown field \"" + path + "\"");
  return out;
}

Status CheckBody(const nlohmann::json& obj, const Type& root,
                 const std::string& kind, const std::string& version,
                 const std::string& field_validation,
                 std::vector<std::string>* warnings, const Schema& schema,
                 const BodyFindings* findings) {
  if (auto err = FirstTypeError(obj, root, schema)) {
    return DecodeError(kind, version, *err);
  }
  if (field_validation == "Ignore") return Status::Ok();
  return CheckFindings(UnknownFields(obj, root, schema), kind, version,
                       field_validation, warnings, findings);
}

Status CheckAndPruneBody(nlohmann::json* obj, const Type& root,
                         const std::string& kind, const std::string& version,
                         const std::string& field_validation,
                         std::vector<std::string>* warnings,
                         const Schema& schema, const BodyFindings* findings) {
  if (auto err = FirstTypeError(*obj, root, schema)) {
    return DecodeError(kind, version, *err);
  }
  return CheckFindings(PruneUnknownFields(obj, root, schema), kind, version,
                       field_validation, warnings, findings);
}

}  // namespace kmock::api
