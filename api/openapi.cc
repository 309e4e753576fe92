#include "api/openapi.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>
#include <utility>
#include <vector>

namespace kmock::api {

namespace {

constexpr char kSchemaPrefix[] = "#/components/schemas/";
constexpr char kMeta[] = "io.k8s.apimachinery.pkg.apis.meta.v1.";

std::string Ref(const std::string& type) { return kSchemaPrefix + type; }

bool Has(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// ------------------------------------------------------------ schemas

json ScalarSchema(ValueKind kind, const std::string& format) {
  json s = json::object();
  switch (kind) {
    case ValueKind::kString:
      s["type"] = "string";
      break;
    case ValueKind::kInteger:
      s["type"] = "integer";
      break;
    case ValueKind::kNumber:
      s["type"] = "number";
      break;
    case ValueKind::kBoolean:
      s["type"] = "boolean";
      break;
    default:
      s["type"] = "object";
      s["x-kubernetes-preserve-unknown-fields"] = true;
      return s;
  }
  if (!format.empty()) s["format"] = format;
  return s;
}

// The schema of an array element or map value.
json ElementToSchema(const ElementSchema& e) {
  if (!e.ref.empty()) return json{{"$ref", Ref(e.ref)}};
  return ScalarSchema(e.kind, e.format);
}

json FieldToSchema(const Field& f) {
  json s;
  switch (f.kind) {
    case ValueKind::kArray:
      s = {{"type", "array"}, {"items", ElementToSchema(f.items)}};
      break;
    case ValueKind::kMap:
      s = {{"type", "object"},
           {"additionalProperties", ElementToSchema(f.items)}};
      break;
    default:
      if (!f.ref.empty()) {
        // A reference with a sibling description is wrapped in allOf, as
        // OpenAPI 3.0 ignores siblings of $ref.
        s = {{"allOf", json::array({{{"$ref", Ref(f.ref)}}})}};
      } else {
        s = ScalarSchema(f.kind, f.format);
      }
  }
  if (!f.description.empty()) s["description"] = f.description;
  if (!f.enum_values.empty()) s["enum"] = f.enum_values;
  if (!f.patch_strategy.empty())
    s["x-kubernetes-patch-strategy"] = f.patch_strategy;
  if (!f.patch_merge_key.empty())
    s["x-kubernetes-patch-merge-key"] = f.patch_merge_key;
  if (!f.list_type.empty()) s["x-kubernetes-list-type"] = f.list_type;
  if (!f.list_map_keys.empty())
    s["x-kubernetes-list-map-keys"] = f.list_map_keys;
  if (!f.map_type.empty()) s["x-kubernetes-map-type"] = f.map_type;
  return s;
}

json TypeToSchema(const Type& t) {
  json s;
  if (!t.description.empty()) s["description"] = t.description;
  if (t.proto_shape == "quantity") {
    // A string or a number on the wire; no single "type".
    s["oneOf"] = json::array({{{"type", "string"}}, {{"type", "number"}}});
    return s;
  }
  if (t.format == "int-or-string") {
    s["format"] = "int-or-string";
    s["oneOf"] = json::array({{{"type", "integer"}}, {{"type", "string"}}});
    s["x-kubernetes-int-or-string"] = true;
    return s;
  }
  if (t.kind != ValueKind::kObject) {
    json scalar = ScalarSchema(t.kind, t.format);
    s.update(scalar);
    return s;
  }
  s["type"] = "object";
  json props = json::object();
  for (const Field& f : t.fields) {
    if (f.name.empty()) continue;  // inline marker; its fields follow it
    props[f.name] = FieldToSchema(f);
  }
  if (!props.empty()) s["properties"] = props;
  if (!t.required.empty()) s["required"] = t.required;
  if (t.preserve_unknown_fields)
    s["x-kubernetes-preserve-unknown-fields"] = true;
  if (!t.gvk_kind.empty()) {
    s["x-kubernetes-group-version-kind"] =
        json::array({{{"group", t.gvk_group},
                      {"kind", t.gvk_kind},
                      {"version", t.gvk_version}}});
  }
  return s;
}

const Type* FindByGvk(const Schema& schema, const std::string& group,
                      const std::string& version, const std::string& kind) {
  for (const auto& [name, t] : schema.types()) {
    if (t.gvk_kind == kind && t.gvk_group == group &&
        t.gvk_version == version) {
      return &t;
    }
  }
  return nullptr;
}

// Adds `name` and every type it reaches to `out`.
void Reach(const Schema& schema, const std::string& name,
           std::set<std::string>* out) {
  if (name.empty() || !out->insert(name).second) return;
  const Type* t = schema.Find(name);
  if (!t) return;
  for (const Field& f : t->fields) {
    if (f.name.empty()) continue;  // inline: the flattened fields cover it
    Reach(schema, f.ref, out);
    Reach(schema, f.items.ref, out);
  }
}

// ------------------------------------------------------------ paths

json QueryParam(const std::string& name, const std::string& type,
                const std::string& description) {
  json schema = {{"type", type}};
  if (type == "string") schema["uniqueItems"] = true;
  return {{"name", name},
          {"in", "query"},
          {"description", description},
          {"schema", schema}};
}

json PathParam(const std::string& name, const std::string& description) {
  return {{"name", name},
          {"in", "path"},
          {"required", true},
          {"description", description},
          {"schema", {{"type", "string"}, {"uniqueItems", true}}}};
}

json PrettyParam() {
  return QueryParam("pretty", "string",
                    "If 'true', the output is indented for reading.");
}

std::vector<json> WriteParams(bool patch) {
  std::vector<json> p = {
      QueryParam("dryRun", "string",
                 "When present, the request is checked but nothing is stored; "
                 "the only valid value is All."),
      QueryParam("fieldManager", "string",
                 "The name of the actor making the change, recorded in "
                 "managedFields."),
      QueryParam("fieldValidation", "string",
                 "What to do with unknown or duplicate fields in the body: "
                 "Ignore, Warn (the default) or Strict."),
  };
  if (patch) {
    p.push_back(QueryParam("force", "boolean",
                           "Take ownership of conflicting fields on apply "
                           "requests; must be unset for other patches."));
  }
  return p;
}

std::vector<json> ListParams() {
  return {
      QueryParam("allowWatchBookmarks", "boolean",
                 "Ask for BOOKMARK events on a watch."),
      QueryParam("continue", "string",
                 "The token from a previous page, to fetch the next one."),
      QueryParam("fieldSelector", "string",
                 "Only return objects whose fields match this selector."),
      QueryParam("labelSelector", "string",
                 "Only return objects whose labels match this selector."),
      QueryParam("limit", "integer",
                 "The most items to return; a continue token fetches more."),
      QueryParam("resourceVersion", "string",
                 "Which version of the data to read from; see the API "
                 "concepts for its semantics."),
      QueryParam("resourceVersionMatch", "string",
                 "How resourceVersion is applied to a list."),
      QueryParam("sendInitialEvents", "boolean",
                 "Start a watch with synthetic events for the current state."),
      QueryParam("timeoutSeconds", "integer",
                 "Ends the list or watch call after this many seconds."),
      QueryParam("watch", "boolean",
                 "Stream changes instead of returning a list."),
  };
}

std::vector<json> DeleteParams() {
  return {
      QueryParam("dryRun", "string",
                 "When present, the request is checked but nothing is "
                 "deleted; the only valid value is All."),
      QueryParam("gracePeriodSeconds", "integer",
                 "Seconds before the object is deleted; zero deletes at once."),
      QueryParam("ignoreStoreReadErrorWithClusterBreakingPotential", "boolean",
                 "Delete an object that cannot be read from storage."),
      QueryParam("orphanDependents", "boolean",
                 "Deprecated; use propagationPolicy."),
      QueryParam("propagationPolicy", "string",
                 "What happens to dependents: Orphan, Background or "
                 "Foreground."),
  };
}

json Content(const json& schema, bool with_watch_types) {
  json c = json::object();
  for (const char* type : {"application/json", "application/yaml",
                           "application/vnd.kubernetes.protobuf"}) {
    c[type] = {{"schema", schema}};
  }
  if (with_watch_types) {
    for (const char* type :
         {"application/json;stream=watch",
          "application/vnd.kubernetes.protobuf;stream=watch"}) {
      c[type] = {{"schema", schema}};
    }
  }
  return c;
}

json Responses(const std::vector<std::string>& codes, const json& schema) {
  json r = json::object();
  for (const std::string& code : codes) {
    const char* text = code == "200"   ? "OK"
                       : code == "201" ? "Created"
                                       : "Accepted";
    r[code] = {{"description", text}, {"content", Content(schema, false)}};
  }
  r["401"] = {{"description", "Unauthorized"}};
  return r;
}

std::string Capitalize(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z')
    s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

// "CoreV1", "AppsV1", "EventsV1", "CoordinationV1".
std::string GroupVersionId(const std::string& group,
                           const std::string& version) {
  std::string g = group.empty() ? "core" : group.substr(0, group.find('.'));
  return Capitalize(g) + Capitalize(version);
}

std::string Tag(const std::string& group, const std::string& version) {
  std::string g = group.empty() ? "core" : group.substr(0, group.find('.'));
  return g + "_" + version;
}

struct OpContext {
  std::string gv_id;  // "CoreV1"
  std::string tag;
  json gvk;  // {"group","kind","version"} of what the path speaks
  std::string kind_ref;
  std::string scope;  // "Namespaced" or ""
  std::string kind;   // "Pod", "PodStatus"...
};

json Operation(const OpContext& c, const std::string& verb,
               const std::string& action, const std::string& description) {
  return {{"tags", json::array({c.tag})},
          {"description", description},
          {"operationId", verb + c.gv_id + c.scope + c.kind},
          {"x-kubernetes-action", action},
          {"x-kubernetes-group-version-kind", c.gvk}};
}

json PatchBody() {
  json schema = {{"$ref", Ref(std::string(kMeta) + "Patch")}};
  json content = json::object();
  for (const char* type :
       {"application/apply-patch+yaml", "application/json-patch+json",
        "application/merge-patch+json",
        "application/strategic-merge-patch+json"}) {
    content[type] = {{"schema", schema}};
  }
  return {{"content", content}, {"required", true}};
}

json Body(const std::string& ref) {
  return {{"content", {{"*/*", {{"schema", {{"$ref", ref}}}}}}},
          {"required", true}};
}

void AddResourcePaths(const ResourceInfo& r, const Schema& schema,
                      json* paths) {
  const std::string prefix = r.group.empty()
                                 ? "/api/" + r.version
                                 : "/apis/" + r.group + "/" + r.version;
  const std::string ns_prefix =
      r.namespaced ? prefix + "/namespaces/{namespace}" : prefix;
  const std::string collection = ns_prefix + "/" + r.plural;
  const std::string item = collection + "/{name}";
  const std::string status_ref = Ref(std::string(kMeta) + "Status");
  const std::string kind_ref = Ref(r.schema_type);
  const Type* list_type = FindByGvk(schema, r.group, r.version, r.list_kind);
  const std::string list_ref = list_type ? Ref(list_type->name) : kind_ref;

  OpContext c;
  c.gv_id = GroupVersionId(r.group, r.version);
  c.tag = Tag(r.group, r.version);
  c.gvk = {{"group", r.group}, {"kind", r.kind}, {"version", r.version}};
  c.kind_ref = kind_ref;
  c.scope = r.namespaced ? "Namespaced" : "";
  c.kind = r.kind;

  json common = json::array();
  if (r.namespaced) {
    common.push_back(PathParam("namespace", "The object's namespace."));
  }
  common.push_back(PrettyParam());

  // Collection: list, create, deletecollection.
  json coll = {{"parameters", common}};
  if (Has(r.verbs, "list")) {
    json op = Operation(c, "list", "list",
                        "List or watch objects of kind " + r.kind + ".");
    op["parameters"] = ListParams();
    op["responses"] = Responses({"200"}, {{"$ref", list_ref}});
    op["responses"]["200"]["content"] = Content({{"$ref", list_ref}}, true);
    coll["get"] = op;
  }
  if (Has(r.verbs, "create")) {
    json op = Operation(c, "create", "post", "Create a " + r.kind + ".");
    op["parameters"] = WriteParams(false);
    op["requestBody"] = Body(kind_ref);
    op["responses"] = Responses({"200", "201", "202"}, {{"$ref", kind_ref}});
    coll["post"] = op;
  }
  if (Has(r.verbs, "deletecollection")) {
    json op = Operation(c, "deletecollection", "deletecollection",
                        "Delete a collection of " + r.kind + " objects.");
    std::vector<json> params = DeleteParams();
    for (json& p : ListParams()) {
      if (p["name"] != "watch" && p["name"] != "allowWatchBookmarks") {
        params.push_back(std::move(p));
      }
    }
    op["parameters"] = params;
    op["requestBody"] = {
        {"content",
         {{"*/*",
           {{"schema",
             {{"$ref", Ref(std::string(kMeta) + "DeleteOptions")}}}}}}}};
    op["responses"] = Responses({"200"}, {{"$ref", status_ref}});
    coll["delete"] = op;
  }
  if (coll.size() > 1) (*paths)[collection] = coll;

  // Across all namespaces: list only.
  if (r.namespaced && Has(r.verbs, "list")) {
    OpContext all = c;
    all.kind = r.kind + "ForAllNamespaces";
    all.scope = "";
    json op = Operation(
        all, "list", "list",
        "List or watch objects of kind " + r.kind + " in every namespace.");
    op["parameters"] = ListParams();
    op["responses"] = Responses({"200"}, {{"$ref", list_ref}});
    op["responses"]["200"]["content"] = Content({{"$ref", list_ref}}, true);
    (*paths)[prefix + "/" + r.plural] = {
        {"parameters", json::array({PrettyParam()})}, {"get", op}};
  }

  // Item: get, update, patch, delete.
  json item_common = json::array({PathParam("name", "The object's name.")});
  for (const json& p : common) item_common.push_back(p);
  json it = {{"parameters", item_common}};
  if (Has(r.verbs, "get")) {
    json op = Operation(c, "read", "get", "Read the given " + r.kind + ".");
    op["responses"] = Responses({"200"}, {{"$ref", kind_ref}});
    it["get"] = op;
  }
  if (Has(r.verbs, "update")) {
    json op =
        Operation(c, "replace", "put", "Replace the given " + r.kind + ".");
    op["parameters"] = WriteParams(false);
    op["requestBody"] = Body(kind_ref);
    op["responses"] = Responses({"200", "201"}, {{"$ref", kind_ref}});
    it["put"] = op;
  }
  if (Has(r.verbs, "patch")) {
    json op = Operation(c, "patch", "patch",
                        "Partially update the given " + r.kind + ".");
    op["parameters"] = WriteParams(true);
    op["requestBody"] = PatchBody();
    op["responses"] = Responses({"200", "201"}, {{"$ref", kind_ref}});
    it["patch"] = op;
  }
  if (Has(r.verbs, "delete")) {
    json op =
        Operation(c, "delete", "delete", "Delete the given " + r.kind + ".");
    op["parameters"] = DeleteParams();
    op["requestBody"] = {
        {"content",
         {{"*/*",
           {{"schema",
             {{"$ref", Ref(std::string(kMeta) + "DeleteOptions")}}}}}}}};
    op["responses"] = Responses({"200", "202"}, {{"$ref", kind_ref}});
    it["delete"] = op;
  }
  if (it.size() > 1) (*paths)[item] = it;

  // Subresources.
  for (const Subresource& sub : r.subresources) {
    OpContext sc = c;
    std::string sg = sub.kind.empty() ? r.group : sub.group;
    std::string sv = sub.kind.empty() ? r.version : sub.version;
    std::string sk = sub.kind.empty() ? r.kind : sub.kind;
    sc.gvk = {{"group", sg}, {"kind", sk}, {"version", sv}};
    sc.kind = r.kind + Capitalize(sub.name);
    const Type* st = FindByGvk(schema, sg, sv, sk);
    json body_schema =
        st ? json{{"$ref", Ref(st->name)}} : json{{"type", "string"}};
    json sp = {{"parameters", item_common}};
    for (const std::string& verb : sub.verbs) {
      if (verb == "get") {
        json op =
            Operation(sc, "read", "get",
                      "Read the " + sub.name + " of the given " + r.kind + ".");
        op["responses"] = Responses({"200"}, body_schema);
        sp["get"] = op;
      } else if (verb == "update") {
        json op = Operation(
            sc, "replace", "put",
            "Replace the " + sub.name + " of the given " + r.kind + ".");
        op["parameters"] = WriteParams(false);
        op["requestBody"] = {{"content", {{"*/*", {{"schema", body_schema}}}}},
                             {"required", true}};
        op["responses"] = Responses({"200", "201"}, body_schema);
        sp["put"] = op;
      } else if (verb == "patch") {
        json op = Operation(sc, "patch", "patch",
                            "Partially update the " + sub.name +
                                " of the given " + r.kind + ".");
        op["parameters"] = WriteParams(true);
        op["requestBody"] = PatchBody();
        op["responses"] = Responses({"200", "201"}, body_schema);
        sp["patch"] = op;
      } else if (verb == "create") {
        json op = Operation(
            sc, "create", "post",
            "Create the " + sub.name + " of the given " + r.kind + ".");
        op["parameters"] = WriteParams(false);
        op["requestBody"] = {{"content", {{"*/*", {{"schema", body_schema}}}}},
                             {"required", true}};
        op["responses"] = Responses({"200", "201", "202"}, body_schema);
        sp["post"] = op;
      }
    }
    if (sp.size() > 1) (*paths)[item + "/" + sub.name] = sp;
  }
}

// "v1.30.0" whether or not the caller included the "v".
std::string VersionLabel(const std::string& kubernetes_version) {
  if (!kubernetes_version.empty() && kubernetes_version[0] == 'v') {
    return kubernetes_version;
  }
  return "v" + kubernetes_version;
}

std::string GroupVersionPath(const std::string& group,
                             const std::string& version) {
  return group.empty() ? "api/" + version : "apis/" + group + "/" + version;
}

// A stable 128-bit hash of the bytes as 32 upper-case hex digits.
std::string HashHex(const std::string& bytes) {
  uint64_t a = 14695981039346656037ULL, b = 1099511628211ULL * 7919;
  for (unsigned char ch : bytes) {
    a = (a ^ ch) * 1099511628211ULL;
    b = (b ^ ch) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
  }
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llX%016llX",
                static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return buf;
}

// ------------------------------------------------------------ protobuf

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// A length-delimited field (wire type 2).
void PutBytes(int field, const std::string& bytes, std::string* out) {
  PutVarint((static_cast<uint64_t>(field) << 3) | 2, out);
  PutVarint(bytes.size(), out);
  out->append(bytes);
}

}  // namespace

nlohmann::json OpenApiV3Index(const Catalog& catalog, const Schema& schema,
                              const std::string& kubernetes_version) {
  json paths = json::object();
  std::set<std::pair<std::string, std::string>> seen;
  for (const ResourceInfo* r : catalog.resources()) {
    if (!seen.insert({r->group, r->version}).second) continue;
    json doc = OpenApiV3Document(catalog, schema, r->group, r->version,
                                 kubernetes_version);
    std::string path = GroupVersionPath(r->group, r->version);
    paths[path] = {{"serverRelativeURL",
                    "/openapi/v3/" + path + "?hash=" + HashHex(doc.dump())}};
  }
  return {{"paths", paths}};
}

nlohmann::json OpenApiV3Document(const Catalog& catalog, const Schema& schema,
                                 const std::string& group,
                                 const std::string& version,
                                 const std::string& kubernetes_version) {
  json paths = json::object();
  std::set<std::string> reachable;
  bool any = false;
  for (const ResourceInfo* r : catalog.resources()) {
    if (r->group != group || r->version != version) continue;
    any = true;
    AddResourcePaths(*r, schema, &paths);
    Reach(schema, r->schema_type, &reachable);
    if (const Type* l = FindByGvk(schema, r->group, r->version, r->list_kind)) {
      Reach(schema, l->name, &reachable);
    }
    for (const Subresource& sub : r->subresources) {
      if (sub.kind.empty()) continue;
      if (const Type* s = FindByGvk(schema, sub.group, sub.version, sub.kind)) {
        Reach(schema, s->name, &reachable);
      }
    }
  }
  if (!any) return json();
  for (const char* meta : {"Status", "DeleteOptions", "Patch"}) {
    Reach(schema, std::string(kMeta) + meta, &reachable);
  }
  json schemas = json::object();
  for (const std::string& name : reachable) {
    if (const Type* t = schema.Find(name)) schemas[name] = TypeToSchema(*t);
  }
  return {{"openapi", "3.0.0"},
          {"info",
           {{"title", "Kubernetes"},
            {"version", VersionLabel(kubernetes_version)}}},
          {"paths", paths},
          {"components",
           {{"schemas", schemas},
            {"securitySchemes",
             {{"BearerToken",
               {{"type", "apiKey"},
                {"description", "Bearer token authentication"},
                {"name", "authorization"},
                {"in", "header"}}}}}}},
          {"security", json::array({{{"BearerToken", json::array()}}})}};
}

std::string OpenApiV2Protobuf(const Catalog& catalog, const Schema& schema,
                              const std::string& kubernetes_version) {
  (void)catalog;
  (void)schema;
  // gnostic openapi_v2.Document: swagger = 1, info = 2 (Info: title = 1,
  // version = 2). kubectl 1.27/1.28 only need it to load before they use v3.
  std::string info;
  PutBytes(1, "Kubernetes", &info);
  PutBytes(2, VersionLabel(kubernetes_version), &info);
  std::string doc;
  PutBytes(1, "2.0", &doc);
  PutBytes(2, info, &doc);
  return doc;
}

}  // namespace kmock::api
