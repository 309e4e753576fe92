#include "registry/object_codec.h"

#include <algorithm>
#include <optional>

#include "api/typed_json.h"
#include "common/fast_json.h"
#include "common/go_quote.h"
#include "common/json_scan.h"

namespace kmock::registry {

using nlohmann::json;

std::string ObjectKey(const api::ResourceInfo& res, std::string_view ns,
                      std::string_view name) {
  std::string key = res.key_prefix;
  if (res.namespaced) {
    key.append(ns);
    key.push_back('/');
  }
  key.append(name);
  return key;
}

std::string ObjectPrefix(const api::ResourceInfo& res, std::string_view ns) {
  std::string key = res.key_prefix;
  if (res.namespaced && !ns.empty()) {
    key.append(ns);
    key.push_back('/');
  }
  return key;
}

Result<json> DecodeObject(const api::ResourceInfo& res, std::string_view bytes,
                          int64_t revision, bool with_type) {
  json obj = ParseJson(bytes);
  if (obj.is_discarded() || !obj.is_object())
    return Status(StatusCode::kInternal, "stored object is not valid JSON");
  if (res.from_storage) obj = res.from_storage(obj);
  if (with_type) {
    obj["apiVersion"] = res.ApiVersion();
    obj["kind"] = res.kind;
  } else {
    obj.erase("apiVersion");
    obj.erase("kind");
  }
  obj["metadata"]["resourceVersion"] = std::to_string(revision);
  return obj;
}

namespace {

// The text of a metadata member parsed without managedFields (the other
// members copied into one text for the parser, which also unescapes keys);
// discarded when it is not an object.
json ParseMetadataText(std::string_view text) {
  std::optional<std::string> kept = ObjectWithoutMember(text, "managedFields");
  json metadata = kept ? ParseJson(*kept) : json();
  if (!metadata.is_object()) return json(json::value_t::discarded);
  return metadata;
}

}  // namespace

Result<json> DecodeObjectMetadata(const api::ResourceInfo& res,
                                  std::string_view bytes, int64_t revision) {
  json metadata;
  std::optional<std::string_view> text;
  if (!res.from_storage) text = TopLevelMember(bytes, "metadata");
  if (text) {
    metadata = ParseMetadataText(*text);
    if (metadata.is_discarded())
      return Status(StatusCode::kInternal, "stored object is not valid JSON");
  } else {
    KMOCK_ASSIGN_OR_RETURN(json whole, DecodeObject(res, bytes, revision));
    auto m = whole.find("metadata");
    if (m != whole.end() && m->is_object()) {
      metadata = std::move(*m);
      metadata.erase("managedFields");
    }
  }
  if (!metadata.is_object()) metadata = json::object();
  metadata["resourceVersion"] = std::to_string(revision);
  return json{{"apiVersion", res.ApiVersion()},
              {"kind", res.kind},
              {"metadata", std::move(metadata)}};
}

std::string EncodeObject(const api::ResourceInfo& res, const json& obj) {
  json copy = obj;
  return EncodeForWrite(res, copy);
}

std::string EncodeForWrite(const api::ResourceInfo& res, json& obj) {
  if (auto m = obj.find("metadata"); m != obj.end() && m->is_object())
    m->erase("resourceVersion");
  // Kinds stored as served are stored in the served byte layout, so reads
  // can serve the bytes as they are (registry/stored_json).
  return res.to_storage ? res.to_storage(obj).dump()
                        : api::EncodeTypedJson(obj);
}

Result<json> DecodeObjectMembers(const api::ResourceInfo& res,
                                 std::string_view bytes, int64_t revision,
                                 const std::vector<std::string>& members) {
  if (res.from_storage) return DecodeObject(res, bytes, revision);
  json obj = json::object();
  size_t left = members.size();
  bool valid = true;
  // One scan of the top level; a member counts at its first occurrence.
  bool scanned =
      left == 0 || ForEachTopLevelMember(bytes, [&](std::string_view name,
                                                    std::string_view text) {
        if (std::find(members.begin(), members.end(), name) == members.end() ||
            obj.contains(name))
          return true;
        json value =
            name == "metadata" ? ParseMetadataText(text) : ParseJson(text);
        valid = !value.is_discarded();
        obj[std::string(name)] = std::move(value);
        return valid && --left > 0;
      });
  if (!scanned || !valid)
    return Status(StatusCode::kInternal, "stored object is not valid JSON");
  return obj;
}

Result<json> ServedAfterWrite(const api::ResourceInfo& res, json obj,
                              std::string_view bytes, int64_t revision) {
  if (res.to_storage || res.from_storage)
    return DecodeObject(res, bytes, revision);
  obj["metadata"]["resourceVersion"] = std::to_string(revision);
  return obj;
}

Result<int64_t> ParseResourceVersion(const std::string& rv) {
  // kube-apiserver's words: its storage layer's strconv.ParseUint error
  // as a field error, under "invalid resource version".
  auto invalid = [&rv](const char* why) {
    return Status(StatusCode::kBadRequest,
                  "invalid resource version: resourceVersion: Invalid value: " +
                      GoQuote(rv) + ": strconv.ParseUint: parsing " +
                      GoQuote(rv) + ": " + why);
  };
  int64_t n = 0;
  for (char c : rv) {
    if (c < '0' || c > '9') return invalid("invalid syntax");
    if (n > (INT64_MAX - (c - '0')) / 10) return invalid("value out of range");
    n = n * 10 + (c - '0');
  }
  return n;
}

namespace {

bool IsMetadataField(const std::string& field) {
  return field == "metadata.name" || field == "metadata.namespace";
}

// The kind's own selectable field of that name, or null.
const api::SelectableField* KindField(const api::ResourceInfo& res,
                                      const std::string& field) {
  for (const auto& f : res.selectable_fields)
    if (f.name == field) return &f;
  return nullptr;
}

}  // namespace

bool IsSelectableField(const api::ResourceInfo& res, const std::string& field) {
  return IsMetadataField(field) || KindField(res, field) != nullptr;
}

std::string FieldValue(const api::ResourceInfo& res, const json& obj,
                       const std::string& field) {
  if (IsMetadataField(field)) {
    auto m = obj.find("metadata");
    if (m == obj.end() || !m->is_object()) return "";
    auto v = m->find(field == "metadata.name" ? "name" : "namespace");
    return (v != m->end() && v->is_string()) ? v->get<std::string>() : "";
  }
  const api::SelectableField* f = KindField(res, field);
  return f ? f->value(obj) : "";
}

bool Filter::Matches(const api::ResourceInfo& res, const json& obj) const {
  if (!labels.Empty()) {
    static const json kNull;
    const json* l = &kNull;
    if (auto m = obj.find("metadata"); m != obj.end() && m->is_object())
      if (auto it = m->find("labels"); it != m->end()) l = &*it;
    if (!labels.Matches(*l)) return false;
  }
  if (!fields.Empty())
    return fields.Matches(
        [&](const std::string& f) { return FieldValue(res, obj, f); });
  return true;
}

std::optional<std::vector<std::string>> Filter::MembersRead(
    const api::ResourceInfo& res) const {
  std::vector<std::string> out;
  auto add = [&out](const std::string& m) {
    if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  };
  if (!labels.Empty()) add("metadata");
  for (const auto& r : fields.requirements()) {
    if (IsMetadataField(r.field)) {
      add("metadata");
      continue;
    }
    const api::SelectableField* f = KindField(res, r.field);
    if (f == nullptr || f->reads.empty()) return std::nullopt;
    for (const std::string& m : f->reads) add(m);
  }
  return out;
}

Result<Filter> MakeFilter(const api::ResourceInfo& res,
                          const std::string& label_selector,
                          const std::string& field_selector) {
  Filter f;
  KMOCK_ASSIGN_OR_RETURN(f.labels, LabelSelector::Parse(label_selector));
  KMOCK_ASSIGN_OR_RETURN(f.fields, FieldSelector::Parse(field_selector));
  for (const auto& r : f.fields.requirements())
    if (!IsSelectableField(res, r.field))
      return Status(StatusCode::kBadRequest,
                    "field label not supported: " + r.field);
  return f;
}

}  // namespace kmock::registry
