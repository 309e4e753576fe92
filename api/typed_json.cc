#include "api/typed_json.h"

#include <map>

#include "api/json_encode.h"

namespace kmock::api {

namespace {

using nlohmann::json;

constexpr char kStatusType[] = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";

// "group/version/Kind" ("" group for the core API) -> type.
const std::map<std::string, const Type*, std::less<>>& KindIndex() {
  static const auto* index = [] {
    auto* m = new std::map<std::string, const Type*, std::less<>>();
    for (const auto& [name, type] : Schema::Builtin().types()) {
      if (type.gvk_kind.empty()) continue;
      (*m)[type.gvk_group + "/" + type.gvk_version + "/" + type.gvk_kind] =
          &type;
    }
    return m;
  }();
  return *index;
}

}  // namespace

const Type* TypeOfObject(const json& object) {
  if (!object.is_object()) return nullptr;
  auto kind = object.find("kind");
  auto api_version = object.find("apiVersion");
  if (kind == object.end() || !kind->is_string() ||
      api_version == object.end() || !api_version->is_string()) {
    return nullptr;
  }
  const std::string& k = kind->get_ref<const std::string&>();
  const std::string& av = api_version->get_ref<const std::string&>();
  if (k == "Status" && av == "v1") return Schema::Builtin().Find(kStatusType);
  std::string id;
  if (av.find('/') == std::string::npos) id = "/";
  id.append(av).append("/").append(k);
  const auto& index = KindIndex();
  auto it = index.find(id);
  return it == index.end() ? nullptr : it->second;
}

void AppendTypedJson(const json& object, std::string* out) {
  if (const Type* type = TypeOfObject(object)) {
    AppendObjectJson(object, *type, out, Schema::Builtin());
  } else {
    AppendJson(object, out);
  }
}

std::string EncodeTypedJson(const json& object) {
  std::string out;
  AppendTypedJson(object, &out);
  return out;
}

}  // namespace kmock::api
