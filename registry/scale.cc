#include "registry/scale.h"

#include <sstream>

#include "api/field_errors.h"
#include "registry/selectors.h"

namespace kmock::registry {

using nlohmann::json;

namespace {

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  std::string part;
  while (std::getline(ss, part, '.'))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

const json* At(const json& obj, const std::string& path) {
  const json* cur = &obj;
  for (const auto& p : SplitPath(path)) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(p);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

void Set(json* obj, const std::string& path, json value) {
  json* cur = obj;
  for (const auto& p : SplitPath(path)) {
    if (!cur->is_object()) *cur = json::object();
    cur = &(*cur)[p];
  }
  *cur = std::move(value);
}

int64_t IntAt(const json& obj, const std::string& path) {
  const json* v = At(obj, path);
  return (v && v->is_number_integer()) ? v->get<int64_t>() : 0;
}

}  // namespace

json ScaleOf(const api::ResourceInfo& res, const json& obj) {
  const api::ScaleSubresource& sc = *res.scale;
  json meta = json::object();
  if (auto m = obj.find("metadata"); m != obj.end() && m->is_object())
    for (const char* f :
         {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"})
      if (auto it = m->find(f); it != m->end()) meta[f] = *it;
  json spec = json::object();
  if (int64_t r = IntAt(obj, sc.spec_replicas_path); r != 0)
    spec["replicas"] = r;
  json status = {{"replicas", IntAt(obj, sc.status_replicas_path)}};
  if (const json* sel = At(obj, sc.selector_path)) {
    // A plain label map (a ReplicationController's selector) reads as its
    // matchLabels.
    const bool plain_map = sel->is_object() && !sel->contains("matchLabels") &&
                           !sel->contains("matchExpressions");
    auto parsed =
        LabelSelector::FromJson(plain_map ? json{{"matchLabels", *sel}} : *sel);
    if (parsed.ok() && !parsed->ToString().empty())
      status["selector"] = parsed->ToString();
  }
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", meta},
          {"spec", spec},
          {"status", status}};
}

Status ValidateScale(const json& scale) {
  api::FieldErrors errs;
  const json* r = At(scale, "spec.replicas");
  if (r && !r->is_null()) {
    if (!r->is_number_integer())
      errs.Invalid("spec.replicas", *r, "must be an integer");
    else if (r->get<int64_t>() < 0)
      errs.Invalid("spec.replicas", *r, "must be greater than or equal to 0");
  }
  if (errs.empty()) return Status::Ok();
  std::string name;
  if (const json* n = At(scale, "metadata.name"); n && n->is_string())
    name = *n;
  return errs.ToStatus("Scale", "autoscaling", "scale", name);
}

void ApplyScale(const api::ResourceInfo& res, const json& scale, json* obj) {
  const json* r = At(scale, "spec.replicas");
  Set(obj, res.scale->spec_replicas_path,
      (r && r->is_number_integer()) ? r->get<int64_t>() : 0);
}

}  // namespace kmock::registry
