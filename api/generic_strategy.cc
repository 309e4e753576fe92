#include "api/generic_strategy.h"

namespace kmock::api {

namespace {

void DefaultValue(const Schema& schema, const std::string& ref, json& v);

void DefaultElements(const Schema& schema, const Field& f, json& v) {
  if (f.items.kind != ValueKind::kObject || f.items.ref.empty()) return;
  if ((f.kind == ValueKind::kArray && v.is_array()) ||
      (f.kind == ValueKind::kMap && v.is_object())) {
    for (json& e : v) DefaultValue(schema, f.items.ref, e);
  }
}

void DefaultValue(const Schema& schema, const std::string& ref, json& v) {
  const Type* t = schema.Find(ref);
  if (t != nullptr && t->defaults_below && v.is_object()) {
    ApplySchemaDefaults(schema, *t, v);
  }
}

int64_t Generation(const json& obj) {
  auto md = obj.find("metadata");
  if (md == obj.end() || !md->is_object()) return 0;
  auto g = md->find("generation");
  return g != md->end() && g->is_number_integer() ? g->get<int64_t>() : 0;
}

bool SpecDiffers(const json& obj, const json& old) {
  auto skip = [](const std::string& k) {
    return k == "metadata" || k == "status" || k == "apiVersion" || k == "kind";
  };
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (skip(it.key())) continue;
    auto o = old.find(it.key());
    if (o == old.end() || *o != *it) return true;
  }
  for (auto it = old.begin(); it != old.end(); ++it) {
    if (!skip(it.key()) && !obj.contains(it.key())) return true;
  }
  return false;
}

}  // namespace

void ApplySchemaDefaults(const Schema& schema, const Type& type, json& obj) {
  if (!type.defaults_below || !obj.is_object()) return;
  for (const Field& f : type.fields) {
    if (f.name.empty()) continue;  // an inline marker; its fields follow
    auto it = obj.find(f.name);
    if (it == obj.end() || it->is_null()) {
      if (!f.default_value.is_null()) obj[f.name] = f.default_value;
      continue;
    }
    if (f.kind == ValueKind::kObject) {
      DefaultValue(schema, f.ref, *it);
    } else if (f.kind == ValueKind::kArray || f.kind == ValueKind::kMap) {
      DefaultElements(schema, f, *it);
    }
  }
}

void BumpGenerationOnSpecChange(json& obj, const json& old) {
  if (!obj.is_object() || !old.is_object()) return;
  int64_t gen = Generation(old);
  if (SpecDiffers(obj, old)) ++gen;
  obj["metadata"]["generation"] = gen == 0 ? 1 : gen;
}

void GenericStrategy::PrepareForCreate(json& obj) const {
  if (!obj.is_object()) return;
  if (has_status_) obj.erase("status");
  if (keeps_generation_) obj["metadata"]["generation"] = 1;
  if (code_ != nullptr && code_->prepare_create) code_->prepare_create(obj);
}

void GenericStrategy::PrepareForUpdate(json& obj, const json& old) const {
  if (!obj.is_object()) return;
  if (has_status_) {
    auto st = old.is_object() ? old.find("status") : old.end();
    if (old.is_object() && st != old.end()) {
      obj["status"] = *st;
    } else {
      obj.erase("status");
    }
  }
  if (code_ != nullptr && code_->prepare_update)
    code_->prepare_update(obj, old);
  if (keeps_generation_) BumpGenerationOnSpecChange(obj, old);
}

void GenericStrategy::Default(json& obj) const {
  if (code_ != nullptr && code_->normalize) code_->normalize(obj);
  if (type_ != nullptr) ApplySchemaDefaults(*schema_, *type_, obj);
}

void GenericStrategy::Validate(const json& obj, FieldErrors* errs) const {
  if (code_ != nullptr && code_->validate) code_->validate(obj, errs);
}

void GenericStrategy::ValidateUpdate(const json& obj, const json& old,
                                     FieldErrors* errs) const {
  if (code_ == nullptr) return;
  if (code_->validate_update) {
    code_->validate_update(obj, old, errs);
  } else if (code_->validate) {
    code_->validate(obj, errs);
  }
}

}  // namespace kmock::api
