#include "server/table.h"

#include <algorithm>
#include <vector>

namespace kmock::server {
namespace {

using nlohmann::json;

// Used when a resource declares no columns: name and creation time.
std::vector<api::PrinterColumn> DefaultColumns() {
  return {
      {"Name", "string", "name", "The unique name of the object in its scope.",
       0, ".metadata.name", ""},
      {"Created At", "date", "", "When the object was created.", 0,
       ".metadata.creationTimestamp", ""},
  };
}

json ColumnDefinitions(const api::ResourceInfo& res) {
  const std::vector<api::PrinterColumn> fallback = DefaultColumns();
  const std::vector<api::PrinterColumn>& cols =
      res.columns.empty() ? fallback : res.columns;
  json out = json::array();
  for (const api::PrinterColumn& c : cols) {
    out.push_back({{"name", c.name},
                   {"type", c.type},
                   {"format", c.format},
                   {"description", c.description},
                   {"priority", c.priority}});
  }
  return out;
}

json Cells(const api::ResourceInfo& res, const json& obj, TimePoint now) {
  if (!res.columns.empty() && res.cells) {
    json out = json::array();
    for (json& cell : res.cells(obj, now)) out.push_back(std::move(cell));
    return out;
  }
  const json& meta =
      obj.contains("metadata") ? obj["metadata"] : json::object();
  return json::array(
      {meta.value("name", ""), meta.value("creationTimestamp", "")});
}

json Row(const api::ResourceInfo& res, const json& obj, TimePoint now,
         const TableOptions& opts) {
  json row = {{"cells", Cells(res, obj, now)}};
  switch (opts.include) {
    case IncludeObject::kNone:
      break;
    case IncludeObject::kObject:
      // List items may omit their type; an embedded object must carry it
      // (kubectl decodes it to sort rows).
      row["object"] = obj;
      if (!obj.contains("kind")) row["object"]["kind"] = res.kind;
      if (!obj.contains("apiVersion"))
        row["object"]["apiVersion"] = res.ApiVersion();
      break;
    case IncludeObject::kMetadata:
      row["object"] = {{"kind", "PartialObjectMetadata"},
                       {"apiVersion", "meta.k8s.io/" + opts.version},
                       {"metadata", obj.contains("metadata") ? obj["metadata"]
                                                             : json::object()}};
      break;
  }
  return row;
}

json EmptyTable(const api::ResourceInfo& res, const TableOptions& opts) {
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/" + opts.version},
          {"metadata", json::object()},
          {"columnDefinitions", ColumnDefinitions(res)},
          {"rows", json::array()}};
}

}  // namespace

Result<IncludeObject> ParseIncludeObject(std::string_view value) {
  if (value.empty() || value == "Metadata") return IncludeObject::kMetadata;
  if (value == "Object") return IncludeObject::kObject;
  if (value == "None") return IncludeObject::kNone;
  return BadRequestError(
      "includeObject must be one of None, Metadata, Object; got \"" +
      std::string(value) + "\"");
}

json TableFrame(const api::ResourceInfo& res, const json& list_meta,
                const TableOptions& opts) {
  json table = EmptyTable(res, opts);
  if (list_meta.is_object()) {
    for (const char* key :
         {"resourceVersion", "continue", "remainingItemCount"}) {
      if (list_meta.contains(key)) table["metadata"][key] = list_meta[key];
    }
  }
  return table;
}

json TableRow(const api::ResourceInfo& res, const json& obj, TimePoint now,
              const TableOptions& opts) {
  return Row(res, obj, now, opts);
}

json ListToTable(const api::ResourceInfo& res, const json& list, TimePoint now,
                 const TableOptions& opts) {
  json table = TableFrame(
      res, list.contains("metadata") ? list["metadata"] : json(), opts);
  if (list.contains("items") && list["items"].is_array()) {
    std::vector<const json*> items;
    for (const json& item : list["items"]) items.push_back(&item);
    if (res.table_row_less) {
      std::stable_sort(items.begin(), items.end(),
                       [&](const json* a, const json* b) {
                         return res.table_row_less(*a, *b);
                       });
    }
    for (const json* item : items) {
      table["rows"].push_back(Row(res, *item, now, opts));
    }
  }
  return table;
}

json ObjectToTable(const api::ResourceInfo& res, const json& obj, TimePoint now,
                   const TableOptions& opts) {
  json table = EmptyTable(res, opts);
  if (obj.contains("metadata") && obj["metadata"].contains("resourceVersion")) {
    table["metadata"]["resourceVersion"] = obj["metadata"]["resourceVersion"];
  }
  table["rows"].push_back(Row(res, obj, now, opts));
  return table;
}

}  // namespace kmock::server
