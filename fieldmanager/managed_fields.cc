#include "fieldmanager/managed_fields.h"

#include <algorithm>

#include "patch/go_format.h"

namespace kmock::fieldmanager {

using nlohmann::json;

bool ManagedEntry::SameIdentity(const ManagedEntry& o) const {
  if (manager != o.manager || operation != o.operation ||
      subresource != o.subresource) {
    return false;
  }
  return operation == "Apply" || api_version == o.api_version;
}

std::string ManagedEntry::Identifier() const {
  std::string out = "{";
  auto add = [&](const char* key, const std::string& value) {
    if (value.empty()) return;
    if (out.size() > 1) out += ",";
    out += "\"" + std::string(key) + "\":" + json(value).dump();
  };
  add("manager", manager);
  add("operation", operation);
  if (operation != "Apply") add("apiVersion", api_version);
  add("subresource", subresource);
  return out + "}";
}

std::string ManagedEntry::Printed() const {
  std::string out = patch::GoQuote(manager);
  if (!subresource.empty()) {
    out += " with subresource " + patch::GoQuote(subresource);
  }
  if (operation == "Update") out += " using " + api_version;
  return out;
}

Result<std::vector<ManagedEntry>> DecodeManagedFields(const json& list) {
  std::vector<ManagedEntry> out;
  if (list.is_null()) return out;
  if (!list.is_array()) {
    return Status(StatusCode::kBadRequest, "managedFields must be a list");
  }
  for (const json& j : list) {
    if (!j.is_object()) {
      return Status(StatusCode::kBadRequest,
                    "managedFields entries must be objects");
    }
    ManagedEntry e;
    auto str = [&](const char* key) {
      auto it = j.find(key);
      return it != j.end() && it->is_string() ? it->get<std::string>()
                                              : std::string();
    };
    e.manager = str("manager");
    e.operation = str("operation");
    e.api_version = str("apiVersion");
    e.subresource = str("subresource");
    e.time = str("time");
    if (str("fieldsType") != "FieldsV1") {
      return Status(
          StatusCode::kBadRequest,
          "error decoding fields: only type FieldsV1 is supported, got " +
              patch::GoQuote(str("fieldsType")));
    }
    auto fields =
        FieldSet::FromFieldsV1(j.contains("fieldsV1") ? j["fieldsV1"] : json());
    if (!fields.ok()) return fields.status();
    e.fields = std::move(fields).value();
    for (const ManagedEntry& prev : out) {
      if (prev.SameIdentity(e)) {
        return Status(StatusCode::kBadRequest,
                      "found duplicate manager: " + e.Identifier());
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

namespace {

int64_t Seconds(const std::string& t) {
  TimePoint tp;
  if (t.empty() || !ParseRfc3339(t, &tp)) return 0;
  return std::chrono::duration_cast<std::chrono::seconds>(tp.time_since_epoch())
      .count();
}

}  // namespace

bool StoredBefore(const ManagedEntry& p, const ManagedEntry& q) {
  if (p.operation != q.operation) return p.operation < q.operation;
  int64_t ps = Seconds(p.time), qs = Seconds(q.time);
  if (ps != qs) return ps < qs;
  if (p.manager != q.manager) return p.manager < q.manager;
  if (p.api_version != q.api_version) return p.api_version < q.api_version;
  return p.subresource < q.subresource;
}

json EncodeManagedEntry(const ManagedEntry& e, json fields_v1) {
  json j = json::object();
  if (!e.manager.empty()) j["manager"] = e.manager;
  if (!e.operation.empty()) j["operation"] = e.operation;
  if (!e.api_version.empty()) j["apiVersion"] = e.api_version;
  if (!e.time.empty()) j["time"] = e.time;
  j["fieldsType"] = "FieldsV1";
  j["fieldsV1"] = std::move(fields_v1);
  if (!e.subresource.empty()) j["subresource"] = e.subresource;
  return j;
}

bool DecodeEntryIdentity(const json& j, ManagedEntry* out) {
  if (!j.is_object()) return false;
  auto str = [&](const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>()
                                            : std::string();
  };
  auto fields = j.find("fieldsV1");
  if (str("fieldsType") != "FieldsV1" || fields == j.end() ||
      !fields->is_object())
    return false;
  out->manager = str("manager");
  out->operation = str("operation");
  out->api_version = str("apiVersion");
  out->subresource = str("subresource");
  out->time = str("time");
  return true;
}

json EncodeManagedFields(std::vector<ManagedEntry> entries) {
  entries.erase(
      std::remove_if(entries.begin(), entries.end(),
                     [](const ManagedEntry& e) { return e.fields.empty(); }),
      entries.end());
  std::stable_sort(entries.begin(), entries.end(), StoredBefore);
  json out = json::array();
  for (const ManagedEntry& e : entries)
    out.push_back(EncodeManagedEntry(e, e.fields.ToFieldsV1()));
  return out;
}

bool IsResetManagedFields(const json& list) {
  return list.is_array() && list.size() == 1 && list[0].is_object() &&
         list[0].empty();
}

}  // namespace kmock::fieldmanager
