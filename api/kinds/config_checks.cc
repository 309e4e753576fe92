#include "api/kinds/config_checks.h"

#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "api/kinds/util.h"
#include "common/go_base64.h"

namespace kmock::api::kinds {

namespace {

using nlohmann::json;

constexpr size_t kMaxSize = 1024 * 1024;  // core.MaxSecretSize
constexpr char kImmutableSet[] = "field is immutable when `immutable` is set";

// validation.IsConfigMapKey.
std::vector<std::string> ConfigKeyErrors(const std::string& key) {
  std::vector<std::string> errs;
  if (key.size() > 253) errs.push_back("must be no more than 253 characters");
  bool ok = !key.empty();
  for (char c : key) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
          c == '.')) {
      ok = false;
    }
  }
  if (!ok) {
    errs.push_back(
        "a valid config key must consist of alphanumeric characters, '-', "
        "'_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex "
        "used for validation is '[-._a-zA-Z0-9]+')");
  }
  if (key == ".") {
    errs.push_back("must not be '.'");
  } else if (key == "..") {
    errs.push_back("must not be '..'");
  } else if (key.rfind("..", 0) == 0) {
    errs.push_back("must not start with '..'");
  }
  return errs;
}

const json& MapAt(const json& obj, const char* key) {
  static const json kEmpty = json::object();
  auto it = obj.find(key);
  return it != obj.end() && it->is_object() ? *it : kEmpty;
}

// Checks the keys of obj[field] and returns the size of its values
// (decoded when `base64`).
size_t CheckKeys(const json& obj, const char* field, bool base64,
                 FieldErrors* errs) {
  size_t size = 0;
  for (const auto& [key, value] : MapAt(obj, field).items()) {
    for (const std::string& msg : ConfigKeyErrors(key)) {
      errs->Invalid(std::string(field) + "[" + key + "]", key, msg);
    }
    if (!value.is_string()) continue;
    const std::string& text = value.get_ref<const std::string&>();
    size_t at = 0;
    auto bytes = base64 ? GoBase64Decode(text, &at) : std::nullopt;
    size += bytes ? bytes->size() : text.size();
  }
  return size;
}

bool IsImmutable(const json& obj) {
  auto it = obj.find("immutable");
  return it != obj.end() && it->is_boolean() && it->get<bool>();
}

void CheckImmutable(const json& obj, const json& old,
                    std::initializer_list<const char*> fields,
                    FieldErrors* errs) {
  if (!IsImmutable(old)) return;
  if (!IsImmutable(obj)) errs->Forbidden("immutable", kImmutableSet);
  for (const char* field : fields) {
    if (MapAt(obj, field) != MapAt(old, field)) {
      errs->Forbidden(field, kImmutableSet);
    }
  }
}

bool HasKey(const json& obj, const char* key) {
  return MapAt(obj, "data").contains(key);
}

// A docker config key must hold JSON.
void CheckDockerConfig(const json& obj, const char* key, FieldErrors* errs) {
  const std::string path = std::string("data[") + key + "]";
  if (!HasKey(obj, key)) {
    errs->Required(path);
    return;
  }
  size_t at = 0;
  const json& value = MapAt(obj, "data")[key];
  auto bytes = value.is_string()
                   ? GoBase64Decode(value.get_ref<const std::string&>(), &at)
                   : std::nullopt;
  if (!bytes) return;
  if (!json::accept(*bytes)) {
    errs->Invalid(path, "<secret contents redacted>",
                  bytes->empty() ? "unexpected end of JSON input"
                                 : "invalid character looking for beginning "
                                   "of value");
  }
}

}  // namespace

void ValidateConfigMap(const json& obj, FieldErrors* errs) {
  size_t size = CheckKeys(obj, "data", false, errs);
  size += CheckKeys(obj, "binaryData", true, errs);
  for (const auto& [key, value] : MapAt(obj, "binaryData").items()) {
    (void)value;
    if (MapAt(obj, "data").contains(key)) {
      errs->Invalid("binaryData", key, "duplicate of key present in data");
    }
  }
  if (size > kMaxSize) errs->TooLong("", "", int(kMaxSize));
}

void ValidateConfigMapUpdate(const json& obj, const json& old,
                             FieldErrors* errs) {
  CheckImmutable(obj, old, {"data", "binaryData"}, errs);
  ValidateConfigMap(obj, errs);
}

void NormalizeSecret(json& obj) {
  auto it = obj.find("stringData");
  if (it == obj.end()) return;
  if (it->is_object()) {
    for (const auto& [key, value] : it->items()) {
      if (value.is_string()) {
        obj["data"][key] = GoBase64Encode(value.get_ref<const std::string&>());
      }
    }
  }
  obj.erase("stringData");
}

void ValidateSecret(const json& obj, FieldErrors* errs) {
  if (CheckKeys(obj, "data", true, errs) > kMaxSize) {
    errs->TooLong("data", "", int(kMaxSize));
  }
  const std::string type = Str(obj, {"type"});
  if (type == "kubernetes.io/service-account-token") {
    const json& annotations = MapAt(MapAt(obj, "metadata"), "annotations");
    if (annotations.value("kubernetes.io/service-account.name", "").empty()) {
      errs->Required(
          "metadata.annotations[kubernetes.io/service-account.name]");
    }
  } else if (type == "kubernetes.io/dockercfg") {
    CheckDockerConfig(obj, ".dockercfg", errs);
  } else if (type == "kubernetes.io/dockerconfigjson") {
    CheckDockerConfig(obj, ".dockerconfigjson", errs);
  } else if (type == "kubernetes.io/basic-auth") {
    if (!HasKey(obj, "username") && !HasKey(obj, "password")) {
      errs->Required("data[username]");
      errs->Required("data[password]");
    }
  } else if (type == "kubernetes.io/ssh-auth") {
    if (!HasKey(obj, "ssh-privatekey")) errs->Required("data[ssh-privatekey]");
  } else if (type == "kubernetes.io/tls") {
    if (!HasKey(obj, "tls.crt")) errs->Required("data[tls.crt]");
    if (!HasKey(obj, "tls.key")) errs->Required("data[tls.key]");
  }
}

void ValidateSecretUpdate(const json& obj, const json& old, FieldErrors* errs) {
  if (Str(obj, {"type"}) != Str(old, {"type"})) {
    errs->Immutable("type", obj.value("type", json()));
  }
  CheckImmutable(obj, old, {"data"}, errs);
  ValidateSecret(obj, errs);
}

}  // namespace kmock::api::kinds
