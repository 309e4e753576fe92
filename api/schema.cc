#include "api/schema.h"

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

namespace kmock::api {

// Defined in the file the build generates from api/types/*.yaml.
extern const char kEmbeddedSchemaJson[];

namespace {

using nlohmann::json;

bool ParseKind(const std::string& s, ValueKind* out) {
  static const std::pair<const char*, ValueKind> kKinds[] = {
      {"string", ValueKind::kString}, {"integer", ValueKind::kInteger},
      {"number", ValueKind::kNumber}, {"boolean", ValueKind::kBoolean},
      {"object", ValueKind::kObject}, {"array", ValueKind::kArray},
      {"map", ValueKind::kMap},       {"any", ValueKind::kAny},
  };
  for (const auto& [name, kind] : kKinds) {
    if (s == name) {
      *out = kind;
      return true;
    }
  }
  return false;
}

std::vector<std::string> Strings(const json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it != j.end()) {
    for (const auto& s : *it) out.push_back(s.get<std::string>());
  }
  return out;
}

// Reads one field; returns "" or what is wrong.
std::string ReadField(const json& j, Field* f) {
  f->name = j.value("name", "");
  f->proto = j.value("proto", 0);
  if (!ParseKind(j.value("kind", "string"), &f->kind)) {
    return "field " + f->name + ": bad kind";
  }
  f->format = j.value("format", "");
  f->ref = j.value("ref", "");
  if (auto it = j.find("items"); it != j.end()) {
    if (!ParseKind(it->value("kind", "string"), &f->items.kind)) {
      return "field " + f->name + ": bad item kind";
    }
    f->items.format = it->value("format", "");
    f->items.ref = it->value("ref", "");
  }
  f->description = j.value("description", "");
  f->required = j.value("required", false);
  f->enum_values = Strings(j, "enum");
  f->patch_strategy = j.value("patch_strategy", "");
  f->patch_merge_key = j.value("patch_merge_key", "");
  f->list_type = j.value("list_type", "");
  f->list_map_keys = Strings(j, "list_map_keys");
  f->map_type = j.value("map_type", "");
  if (auto d = j.find("default"); d != j.end()) f->default_value = *d;
  return "";
}

}  // namespace

const Field* Type::FindField(std::string_view json_name) const {
  if (json_name.empty()) return nullptr;  // inline markers have no name
  for (const Field& f : fields) {
    if (f.name == json_name) return &f;
  }
  return nullptr;
}

const Field* Type::FindFieldByProto(int number) const {
  if (number <= 0) return nullptr;
  for (const Field& f : fields) {
    if (f.proto == number) return &f;
  }
  return nullptr;
}

Result<std::unique_ptr<Schema>> Schema::LoadBuiltin() {
  auto schema = std::make_unique<Schema>();
  std::string err = schema->LoadJson(kEmbeddedSchemaJson);
  if (!err.empty()) {
    return InternalError("the embedded API schema is broken: " + err);
  }
  return schema;
}

const Schema& Schema::Builtin() {
  static const Schema* builtin = [] {
    auto loaded = LoadBuiltin();
    if (!loaded.ok()) {
      std::fprintf(stderr, "kubemock: %s\n", loaded.status().message().c_str());
      std::abort();
    }
    return std::move(loaded).value().release();
  }();
  return *builtin;
}

const Schema::Derived& Schema::EncodePlans(
    const std::function<std::unique_ptr<Derived>(const Schema&)>& make) const {
  std::call_once(encode_plans_once_, [&] { encode_plans_ = make(*this); });
  return *encode_plans_;
}

const Type* Schema::Find(std::string_view name) const {
  auto it = types_.find(name);
  return it == types_.end() ? nullptr : &it->second;
}

std::string Schema::LoadJson(std::string_view json_text) {
  json doc = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return "not a JSON object";
  auto types = doc.find("types");
  if (types == doc.end() || !types->is_array()) return "no 'types' array";
  std::map<std::string, Type, std::less<>> loaded;
  try {
    for (const json& jt : *types) {
      Type t;
      t.name = jt.at("name").get<std::string>();
      t.description = jt.value("description", "");
      if (!ParseKind(jt.value("kind", "object"), &t.kind)) {
        return t.name + ": bad kind";
      }
      t.format = jt.value("format", "");
      t.proto_shape = jt.value("proto_shape", "");
      t.preserve_unknown_fields = jt.value("preserve_unknown_fields", false);
      if (auto g = jt.find("gvk"); g != jt.end()) {
        if (!g->is_array() || g->size() != 3) return t.name + ": bad gvk";
        t.gvk_group = (*g)[0];
        t.gvk_version = (*g)[1];
        t.gvk_kind = (*g)[2];
      }
      t.required = Strings(jt, "required");
      if (auto fs = jt.find("fields"); fs != jt.end()) {
        for (const json& jf : *fs) {
          Field f;
          std::string err = ReadField(jf, &f);
          if (!err.empty()) return t.name + ": " + err;
          t.fields.push_back(std::move(f));
        }
      }
      std::string name = t.name;
      if (!loaded.emplace(name, std::move(t)).second) {
        return name + ": declared twice";
      }
    }
  } catch (const json::exception& e) {
    return std::string("malformed schema: ") + e.what();
  }
  // Every reference must resolve; names and proto numbers must be unique.
  for (const auto& [name, t] : loaded) {
    std::set<std::string> names;
    std::set<int> protos;
    for (const Field& f : t.fields) {
      if (!f.name.empty() && !names.insert(f.name).second) {
        return name + ": field " + f.name + " declared twice";
      }
      if (f.proto != 0 && !protos.insert(f.proto).second) {
        return name + ": protobuf number " + std::to_string(f.proto) +
               " used twice";
      }
      for (const std::string* ref : {&f.ref, &f.items.ref}) {
        if (!ref->empty() && !loaded.count(*ref)) {
          return name + "." + f.name + ": unknown type " + *ref;
        }
      }
      if (f.kind == ValueKind::kObject && f.ref.empty()) {
        return name + "." + f.name + ": object field without a type";
      }
    }
  }
  types_ = std::move(loaded);
  MarkDefaults();
  return "";
}

void Schema::MarkDefaults() {
  // A fixed point over the reference graph (types may refer to themselves).
  for (auto& [name, t] : types_) {
    for (const Field& f : t.fields) {
      if (!f.default_value.is_null()) t.defaults_below = true;
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& [name, t] : types_) {
      if (t.defaults_below) continue;
      for (const Field& f : t.fields) {
        for (const std::string* ref : {&f.ref, &f.items.ref}) {
          if (ref->empty()) continue;
          auto it = types_.find(*ref);
          if (it != types_.end() && it->second.defaults_below) {
            t.defaults_below = true;
          }
        }
      }
      changed = changed || t.defaults_below;
    }
  }
}

}  // namespace kmock::api
