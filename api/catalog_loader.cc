#include "api/catalog_loader.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "api/generic_strategy.h"
#include "api/json_path.h"
#include "api/kinds/kind_code.h"
#include "api/table_cells.h"

namespace kmock::api {

extern const char kEmbeddedResourcesJson[];

using nlohmann::json;

namespace {

Status Bad(const json& entry, const std::string& what) {
  return Status(StatusCode::kInternal,
                "resource " + entry.value("plural", std::string("?")) + "." +
                    entry.value("group", std::string()) + ": " + what);
}

std::vector<std::string> Strings(const json& entry, const char* key) {
  std::vector<std::string> out;
  auto it = entry.find(key);
  if (it == entry.end() || !it->is_array()) return out;
  for (const json& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

// A field selector read at its path: strings as they are, booleans and
// numbers as Go prints them, anything else (or nothing) as "".
Result<SelectableField> PathField(const std::string& name) {
  auto path = JsonPath::Parse("." + name);
  if (!path.ok()) return path.status();
  auto shared = std::make_shared<const JsonPath>(std::move(*path));
  SelectableField f;
  f.name = name;
  f.value = [shared](const json& obj) -> std::string {
    const json* v = shared->First(obj);
    if (v == nullptr) return "";
    if (v->is_string()) return v->get<std::string>();
    if (v->is_boolean()) return v->get<bool>() ? "true" : "false";
    if (v->is_number()) return v->dump();
    return "";
  };
  if (!shared->Root().empty()) f.reads = {shared->Root()};
  return f;
}

}  // namespace

Result<std::unique_ptr<ResourceInfo>> ResourceFromData(const json& e,
                                                       const Schema& schema) {
  auto r = std::make_unique<ResourceInfo>();
  try {
    r->group = e.at("group").get<std::string>();
    r->version = e.at("version").get<std::string>();
    r->kind = e.at("kind").get<std::string>();
    r->list_kind = e.at("list_kind").get<std::string>();
    r->plural = e.at("plural").get<std::string>();
    r->singular = e.at("singular").get<std::string>();
    r->short_names = Strings(e, "short_names");
    r->categories = Strings(e, "categories");
    r->namespaced = e.value("namespaced", true);
    r->verbs = Strings(e, "verbs");
    r->key_prefix = e.value("key_prefix", "");
    r->schema_type = e.at("schema_type").get<std::string>();
    r->name_rule = e.value("name_rule", "subdomain");
    r->keeps_generation = e.value("generation", false);
    r->warning = e.value("warning", "");
    for (const json& s : e.value("subresources", json::array())) {
      Subresource sub;
      sub.name = s.at("name").get<std::string>();
      sub.group = s.value("group", "");
      sub.version = s.value("version", "v1");
      sub.kind = s.at("kind").get<std::string>();
      sub.verbs = Strings(s, "verbs");
      r->subresources.push_back(std::move(sub));
    }
    if (auto sc = e.find("scale"); sc != e.end() && sc->is_object()) {
      ScaleSubresource scale;
      scale.spec_replicas_path = sc->value("spec_replicas_path", "");
      scale.status_replicas_path = sc->value("status_replicas_path", "");
      scale.selector_path = sc->value("selector_path", "");
      r->scale = scale;
    }
    for (const json& c : e.value("columns", json::array())) {
      PrinterColumn col;
      col.name = c.at("name").get<std::string>();
      col.type = c.value("type", "string");
      col.format = c.value("format", "");
      col.description = c.value("description", "");
      col.priority = c.value("priority", 0);
      col.json_path = c.value("json_path", "");
      col.cell = c.value("cell", "");
      r->columns.push_back(std::move(col));
    }
  } catch (const json::exception& ex) {
    return Bad(e, std::string("malformed entry: ") + ex.what());
  }
  const Type* type = schema.Find(r->schema_type);
  if (type == nullptr) return Bad(e, "no type " + r->schema_type);
  r->schema = &schema;
  r->type = type;

  const std::string code_name = e.value("strategy", "");
  const KindCode* code = nullptr;
  if (!code_name.empty()) {
    code = FindKindCode(code_name);
    if (code == nullptr) return Bad(e, "no kind code named " + code_name);
  }
  const bool has_status = r->FindSubresource("status") != nullptr;
  if (code != nullptr && code->strategy != nullptr) {
    r->strategy = code->strategy;
  } else {
    auto generic = std::make_shared<GenericStrategy>(&schema, type, has_status,
                                                     r->keeps_generation, code);
    r->owned_strategies.push_back(generic);
    r->strategy = generic.get();
  }
  if (has_status) {
    if (code != nullptr && code->status_strategy != nullptr) {
      r->status_strategy = code->status_strategy;
    } else {
      auto status = std::make_shared<StatusStrategy>(r->strategy);
      r->owned_strategies.push_back(status);
      r->status_strategy = status.get();
    }
  }
  for (const Subresource& sub : r->subresources) {
    // Subresources written as the kind itself, besides status, behave as
    // only the kind's code says.
    if (sub.name == "status" || sub.kind != r->kind ||
        std::find(sub.verbs.begin(), sub.verbs.end(), "update") ==
            sub.verbs.end()) {
      continue;
    }
    const Strategy* strategy = nullptr;
    if (code != nullptr) {
      auto it = code->subresource_strategies.find(sub.name);
      if (it != code->subresource_strategies.end()) strategy = it->second;
    }
    if (strategy == nullptr) {
      return Bad(e, "the " + sub.name + " subresource needs kind code");
    }
    r->subresource_strategies[sub.name] = strategy;
  }
  if (code != nullptr) {
    r->record_requester = code->record_requester;
    r->stamp_update_times = code->stamp_update_times;
    r->table_row_less = code->table_row_less;
    r->virtual_create = code->virtual_create;
    r->virtual_items = code->virtual_items;
    r->make_allocator = code->make_allocator;
    r->from_storage = code->from_storage;
    r->to_storage = code->to_storage;
  }
  if (e.value("virtual", false) != r->key_prefix.empty()) {
    return Bad(e, "a resource is virtual exactly when it has no key prefix");
  }

  // Selectable fields: the data lists them; code computes some.
  std::set<std::string> listed;
  for (const std::string& name : Strings(e, "selectable_fields")) {
    listed.insert(name);
    const SelectableField* computed = nullptr;
    if (code != nullptr) {
      for (const SelectableField& f : code->selectable_fields) {
        if (f.name == name) computed = &f;
      }
    }
    if (computed != nullptr) {
      r->selectable_fields.push_back(*computed);
      continue;
    }
    auto f = PathField(name);
    if (!f.ok()) return Bad(e, f.status().message());
    r->selectable_fields.push_back(std::move(*f));
  }
  if (code != nullptr) {
    for (const SelectableField& f : code->selectable_fields) {
      if (!listed.count(f.name)) {
        return Bad(e, "kind code computes field " + f.name +
                          " that selectableFields does not list");
      }
    }
  }

  if (!r->columns.empty()) {
    auto row = CompileRow(r->columns);
    if (!row.ok()) return Bad(e, row.status().message());
    if (r->to_storage) {
      // Tables print the stored form (events.k8s.io prints as core events).
      auto to_storage = r->to_storage;
      RowFunction stored_row = std::move(*row);
      r->cells = [to_storage, stored_row](const json& obj, TimePoint now) {
        return stored_row(to_storage(obj), now);
      };
    } else {
      r->cells = std::move(*row);
    }
  }
  return r;
}

Result<std::unique_ptr<Catalog>> LoadBuiltinCatalog(const Schema& schema,
                                                    int minor) {
  json doc = json::parse(kEmbeddedResourcesJson, nullptr, false);
  if (!doc.is_array()) {
    return Status(StatusCode::kInternal, "embedded resources are not a list");
  }
  // Within a group/version, resources are listed by name, as a real
  // server's discovery lists them.
  std::vector<const json*> entries;
  for (const json& entry : doc) entries.push_back(&entry);
  std::stable_sort(
      entries.begin(), entries.end(), [](const json* a, const json* b) {
        return std::make_tuple(a->value("group", ""), a->value("version", ""),
                               a->value("plural", "")) <
               std::make_tuple(b->value("group", ""), b->value("version", ""),
                               b->value("plural", ""));
      });
  auto catalog = std::make_unique<Catalog>();
  for (const json* e : entries) {
    const json& entry = *e;
    const int from = entry.value("served_from", 0);
    const int until = entry.value("served_until", 0);
    if ((from > 0 && minor < from) || (until > 0 && minor > until)) continue;
    auto r = ResourceFromData(entry, schema);
    if (!r.ok()) return r.status();
    // kube-apiserver warns of a deprecation from the release that made it.
    if (minor < entry.value("warning_from", 0)) (*r)->warning.clear();
    KMOCK_RETURN_IF_ERROR(catalog->Add(std::move(*r)));
  }
  return catalog;
}

}  // namespace kmock::api
