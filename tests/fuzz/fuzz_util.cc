#include "tests/fuzz/fuzz_util.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "api/builtin_catalog.h"
#include "api/decode_check.h"
#include "api/field_errors.h"
#include "api/validation.h"
#include "common/clock.h"
#include "common/rng.h"
#include "fieldmanager/field_manager.h"
#include "registry/object_codec.h"
#include "registry/served_object.h"
#include "registry/stored_json.h"

namespace kmock::fuzz {
namespace {

using nlohmann::json;

// A fixed write time, so that every run of an input takes the same path.
TimePoint FixedTime() { return TimePoint(std::chrono::seconds(1'790'000'000)); }

json& MutableMeta(json& obj) {
  json& meta = obj["metadata"];
  if (!meta.is_object()) meta = json::object();
  return meta;
}

const json& Meta(const json& obj) {
  static const json kNull;
  auto it = obj.find("metadata");
  return it == obj.end() ? kNull : *it;
}

std::string MetaName(const json& obj) {
  const json& meta = Meta(obj);
  if (!meta.is_object()) return "";
  auto it = meta.find("name");
  return it != meta.end() && it->is_string() ? it->get<std::string>() : "";
}

// The storage round trip and the Table row, as a GET would serve obj.
void EncodeAndServe(const api::ResourceInfo& res, const json& obj) {
  std::string bytes = registry::EncodeObject(res, obj);
  Result<json> back = registry::DecodeObject(res, bytes, 42);
  if (!back.ok()) return;
  // What a GET or LIST serves from the stored bytes must be what the
  // decoded object encodes to, byte for byte.
  std::string spliced;
  if (registry::AppendServedFromStored(res, bytes, 42, true, &spliced)) {
    std::string encoded = registry::EncodeServedJson(*back);
    if (spliced != encoded) {
      std::fprintf(stderr, "spliced: %s\nencoded: %s\n", spliced.c_str(),
                   encoded.c_str());
      std::abort();
    }
  }
  if (res.cells) (void)res.cells(*back, FixedTime());
  (void)back->dump();
}

Result<json> TrackFields(const api::ResourceInfo& res, const json& old,
                         json obj) {
  const api::Schema& schema = api::Schema::Builtin();
  const api::Type* root = schema.Find(res.schema_type);
  if (!root) return obj;
  fieldmanager::ManagerInfo m;
  m.manager = "kubectl-fuzz";
  m.api_version = res.ApiVersion();
  m.time = FixedTime();
  m.reset_fields =
      fieldmanager::DefaultResetFields("", res.status_strategy != nullptr);
  return fieldmanager::UpdateManagedFields(old, std::move(obj), m, schema,
                                           root);
}

bool PassesDecodeChecks(const api::ResourceInfo& res, const json& obj) {
  const api::Type* type = res.type;
  if (!type) return true;
  std::vector<std::string> warnings;
  // Warn mode looks at every unknown field, then Strict turns them into
  // an error; run both as the two kubectl modes do.
  if (!api::CheckBody(obj, *type, res.kind, res.version, "Warn", &warnings,
                      *res.schema)
           .ok())
    return false;
  return api::CheckBody(obj, *type, res.kind, res.version, "Strict", &warnings,
                        *res.schema)
      .ok();
}

}  // namespace

std::string_view AsText(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

std::optional<json> ParseJson(std::string_view text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

Targeted SplitTarget(std::string_view text) {
  size_t nl = text.find('\n');
  if (nl != std::string_view::npos && nl < 32) {
    std::string_view first = text.substr(0, nl);
    for (const LiveText& t : LiveTexts()) {
      if (first == t.resource) return {std::string(first), text.substr(nl + 1)};
    }
  }
  return {"pods", text};
}

const Live& LiveObject(std::string_view plural) {
  static const std::map<std::string, Live, std::less<>> kLive = [] {
    std::map<std::string, Live, std::less<>> out;
    for (const LiveText& t : LiveTexts()) {
      if (out.count(t.resource)) continue;
      json obj = json::parse(t.json);
      const api::ResourceInfo* res = ResourceFor(obj);
      if (!res) std::abort();  // the embedded objects are ours: fix them
      out.emplace(
          t.resource,
          Live{res, api::Schema::Builtin().Find(res->schema_type), obj});
    }
    return out;
  }();
  auto it = kLive.find(plural);
  if (it == kLive.end()) std::abort();
  return it->second;
}

const api::ResourceInfo* ResourceFor(const json& obj) {
  if (!obj.is_object()) return nullptr;
  auto av = obj.find("apiVersion");
  auto kind = obj.find("kind");
  if (av == obj.end() || kind == obj.end() || !av->is_string() ||
      !kind->is_string())
    return nullptr;
  std::string api_version = av->get<std::string>();
  size_t slash = api_version.find('/');
  std::string group =
      slash == std::string::npos ? "" : api_version.substr(0, slash);
  std::string version =
      slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  return api::testing::BuiltinCatalog().FindByKind(group, version,
                                                   kind->get<std::string>());
}

void RunCreatePipeline(const api::ResourceInfo& res, json obj) {
  if (!obj.is_object() || !res.strategy) return;
  json& meta = MutableMeta(obj);
  if (res.namespaced)
    meta["namespace"] = "default";
  else
    meta.erase("namespace");
  obj["apiVersion"] = res.ApiVersion();
  obj["kind"] = res.kind;
  if (!PassesDecodeChecks(res, obj)) return;
  if (res.virtual_create) {
    api::UserInfo user;
    user.name = "kubernetes-admin";
    user.groups = {"kubeadm:cluster-admins", "system:authenticated"};
    (void)res.virtual_create(obj, user);
    return;
  }
  Rng rng(1);
  obj["metadata"]["uid"] = rng.Uuid();
  obj["metadata"]["creationTimestamp"] = FormatRfc3339(FixedTime());
  res.strategy->Default(obj);
  Result<json> tracked = TrackFields(res, json(nullptr), std::move(obj));
  if (!tracked.ok()) return;
  obj = std::move(tracked).value();
  res.strategy->PrepareForCreate(obj);
  res.strategy->Default(obj);
  if (MetaName(obj).empty())
    obj["metadata"]["name"] = "fuzz" + rng.NameSuffix(5);
  api::FieldErrors errs;
  api::ValidateObjectMeta(Meta(obj), res.namespaced, res.name_rule, &errs);
  res.strategy->Validate(obj, &errs);
  if (!errs.empty()) {
    (void)errs.ToStatus(res.kind, res.group, res.plural, MetaName(obj));
    return;
  }
  EncodeAndServe(res, obj);
}

void RunUpdatePipeline(const api::ResourceInfo& res, const json& old, json obj,
                       bool track_fields) {
  if (!obj.is_object() || !res.strategy) return;
  obj["apiVersion"] = res.ApiVersion();
  obj["kind"] = res.kind;
  if (!PassesDecodeChecks(res, obj)) return;
  const api::Strategy* strategy = res.UpdateStrategyFor("");
  if (!strategy) return;
  res.strategy->Default(obj);
  strategy->PrepareForUpdate(obj, old);
  if (track_fields) {
    Result<json> tracked = TrackFields(res, old, std::move(obj));
    if (!tracked.ok()) return;
    obj = std::move(tracked).value();
  }
  api::FieldErrors errs;
  api::ValidateObjectMetaUpdate(Meta(obj), Meta(old), &errs);
  api::ValidateObjectMeta(Meta(obj), res.namespaced, res.name_rule, &errs);
  res.strategy->Validate(obj, &errs);
  strategy->ValidateUpdate(obj, old, &errs);
  if (!errs.empty()) {
    (void)errs.ToStatus(res.kind, res.group, res.plural, MetaName(old));
    return;
  }
  EncodeAndServe(res, obj);
}

}  // namespace kmock::fuzz
