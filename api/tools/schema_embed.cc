// schema_embed: reads the type definitions in api/types/*.yaml (format in
// api/types/README.md) and the served resources in api/resources/*.yaml
// (format in api/resources/README.md), checks them, and writes a C++ source
// file that holds them as two compact JSON documents
// (kmock::api::kEmbeddedSchemaJson and kEmbeddedResourcesJson), the forms
// api/schema.cc and api/catalog_loader.cc load at start-up. A file with a
// top-level `resources` list is a resource file; any other is a type file.
//
// Checks: every type name is unique, every reference resolves, no type has
// two fields with one JSON name or one protobuf number, merge keys and list
// map keys name fields of the element type, and enums sit on scalars. Any
// failure prints "<file>: <type>.<field>: <problem>" and exits non-zero,
// which fails the build. Resource entries may use only the documented keys;
// each names a declared top-level type, known verbs and a well-formed key
// prefix, and each Table column a JSONPath or a cell.
//
// Usage: kmock_schema_embed OUTPUT.cc INPUT.yaml...
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

struct SourceType {
  std::string file;
  std::string pkg;                             // the file's package
  std::map<std::string, std::string> imports;  // alias -> package
  YAML::Node node;
};

std::vector<std::string> g_errors;

void Fail(const std::string& where, const std::string& what) {
  g_errors.push_back(where + ": " + what);
}

std::string Str(const YAML::Node& n, const char* key) {
  const YAML::Node v = n[key];
  return v && v.IsScalar() ? v.as<std::string>() : std::string();
}

std::vector<std::string> StrList(const YAML::Node& n, const char* key) {
  std::vector<std::string> out;
  const YAML::Node v = n[key];
  if (!v) return out;
  if (v.IsScalar()) {
    out.push_back(v.as<std::string>());
  } else {
    for (const auto& e : v) out.push_back(e.as<std::string>());
  }
  return out;
}

// Scalar spellings and the JSON kind and format they stand for.
bool ScalarType(const std::string& t, std::string* kind, std::string* format) {
  static const std::map<std::string, std::pair<std::string, std::string>> k = {
      {"string", {"string", ""}},
      {"byte", {"string", "byte"}},
      {"date-time", {"string", "date-time"}},
      {"int32", {"integer", "int32"}},
      {"int64", {"integer", "int64"}},
      {"integer", {"integer", ""}},
      {"double", {"number", "double"}},
      {"number", {"number", ""}},
      {"boolean", {"boolean", ""}},
      {"any", {"any", ""}},
  };
  auto it = k.find(t);
  if (it == k.end()) return false;
  *kind = it->second.first;
  *format = it->second.second;
  return true;
}

json ToJson(const YAML::Node& n);

class Embedder {
 public:
  bool Load(const std::string& path) {
    YAML::Node root;
    try {
      root = YAML::LoadFile(path);
    } catch (const YAML::Exception& e) {
      Fail(path, std::string("cannot parse: ") + e.what());
      return false;
    }
    std::string file = path.substr(path.find_last_of('/') + 1);
    std::string pkg = Str(root, "package");
    std::map<std::string, std::string> imports;
    if (root["imports"]) {
      for (const auto& kv : root["imports"]) {
        imports[kv.first.as<std::string>()] = kv.second.as<std::string>();
      }
    }
    if (root["copyOf"]) {
      // The types of an older version of a group: every type of another
      // package again under this one (see api/types/README.md).
      copies_.push_back(Copy{file, pkg, Str(root, "copyOf"),
                             Str(root, "version"), root["renames"]});
      if (!root["types"]) return true;
    }
    if (!root["types"] || !root["types"].IsSequence()) {
      Fail(file, "no 'types' list");
      return false;
    }
    for (const auto& t : root["types"]) {
      std::string name = Str(t, "name");
      if (name.empty()) {
        Fail(file, "a type without a name");
        continue;
      }
      std::string full = Qualify(name, pkg, {});
      if (sources_.count(full)) {
        Fail(file,
             "type " + full + " is also declared in " + sources_[full].file);
        continue;
      }
      sources_[full] = SourceType{file, pkg, imports, t};
      order_.push_back(full);
    }
    return true;
  }

  // Resolves every type (fields, references, inline fields) into JSON.
  json Build() {
    for (const Copy& c : copies_) ApplyCopy(c);
    json types = json::array();
    for (const auto& name : order_) {
      std::set<std::string> stack;
      const json* t = Resolve(name, &stack);
      if (t) types.push_back(*t);
    }
    return json{{"types", types}};
  }

 private:
  struct Copy {
    std::string file;
    std::string pkg;      // the copies' package
    std::string from;     // the package copied
    std::string version;  // the copies' gvk version
    YAML::Node renames;   // type -> {field: new name}
  };

  // Declares every type of c.from again in c.pkg: references between them
  // stay within the new package, top-level kinds get c.version in their
  // gvk, and the fields c.renames names get their names in this version.
  void ApplyCopy(const Copy& c) {
    if (c.from.empty() || c.version.empty()) {
      Fail(c.file, "copyOf needs a package and a version");
      return;
    }
    const std::string prefix = c.from + ".";
    std::vector<std::string> copied;
    for (const std::string& full : order_) {
      if (full.rfind(prefix, 0) != 0) continue;
      const std::string name = full.substr(prefix.size());
      if (name.find('.') != std::string::npos) continue;
      const std::string to = c.pkg + "." + name;
      if (sources_.count(to)) continue;  // declared in the file itself
      // A new node: assigning to a yaml-cpp node changes the node it
      // refers to, which is the original's.
      const SourceType& from = sources_[full];
      SourceType src{c.file, c.pkg, from.imports, YAML::Clone(from.node)};
      if (src.node["gvk"]) {
        auto g = StrList(src.node, "gvk");
        if (g.size() == 3) {
          YAML::Node gvk(YAML::NodeType::Sequence);
          gvk.push_back(g[0]);
          gvk.push_back(c.version);
          gvk.push_back(g[2]);
          src.node["gvk"] = gvk;
        }
      }
      if (c.renames && c.renames[name]) {
        for (const auto& kv : c.renames[name]) {
          bool found = false;
          for (auto f : src.node["fields"]) {
            if (Str(f, "name") == kv.first.as<std::string>()) {
              f["name"] = kv.second.as<std::string>();
              found = true;
            }
          }
          if (!found) {
            Fail(c.file, "renames: " + name + " has no field " +
                             kv.first.as<std::string>());
          }
        }
      }
      sources_[to] = std::move(src);
      copied.push_back(to);
    }
    if (copied.empty()) Fail(c.file, "copyOf: no types in " + c.from);
    order_.insert(order_.end(), copied.begin(), copied.end());
  }

  // A dotted name whose first segment is an import alias expands; a name
  // without dots lives in the file's package; other dotted names are full.
  static std::string Qualify(
      const std::string& name, const std::string& pkg,
      const std::map<std::string, std::string>& imports) {
    auto dot = name.find('.');
    if (dot == std::string::npos) return pkg.empty() ? name : pkg + "." + name;
    auto it = imports.find(name.substr(0, dot));
    if (it != imports.end()) return it->second + name.substr(dot);
    return name;
  }

  // Parses a type expression into {kind, format, ref} (JSON keys of the
  // element schema). False if a referenced type is unknown.
  bool ParseElement(const std::string& expr, const SourceType& src,
                    const std::string& where, json* out) {
    std::string kind, format;
    if (ScalarType(expr, &kind, &format)) {
      (*out)["kind"] = kind;
      if (!format.empty()) (*out)["format"] = format;
      return true;
    }
    std::string full = Qualify(expr, src.pkg, src.imports);
    auto it = sources_.find(full);
    if (it == sources_.end()) {
      Fail(where, "unknown type '" + expr + "' (resolved as " + full + ")");
      return false;
    }
    // The JSON shape of a reference is the shape of the referenced type:
    // Quantity is a string, FieldsV1 is anything, Pod is an object.
    std::string tkind = Str(it->second.node, "type");
    if (tkind.empty()) tkind = "object";
    std::string tformat = Str(it->second.node, "format");
    if (tkind != "object" && tkind != "string" && tkind != "integer" &&
        tkind != "number" && tkind != "boolean" && tkind != "any") {
      Fail(where, "type " + full + " has an unknown JSON type '" + tkind + "'");
      return false;
    }
    (*out)["kind"] = tkind;
    if (!tformat.empty()) (*out)["format"] = tformat;
    (*out)["ref"] = full;
    return true;
  }

  const json* Resolve(const std::string& name, std::set<std::string>* stack) {
    auto done = resolved_.find(name);
    if (done != resolved_.end()) return &done->second;
    if (stack->count(name)) return nullptr;  // inline cycle, reported below
    stack->insert(name);
    const SourceType& src = sources_.at(name);
    const YAML::Node& n = src.node;
    json t;
    t["name"] = name;
    std::string desc = Str(n, "desc");
    if (desc.empty()) Fail(src.file + ": " + name, "no desc");
    t["description"] = desc;
    std::string tkind = Str(n, "type");
    if (!tkind.empty() && tkind != "object") t["kind"] = tkind;
    if (!Str(n, "format").empty()) t["format"] = Str(n, "format");
    if (!Str(n, "protoShape").empty()) t["proto_shape"] = Str(n, "protoShape");
    if (n["preserveUnknownFields"] && n["preserveUnknownFields"].as<bool>()) {
      t["preserve_unknown_fields"] = true;
    }
    if (n["gvk"]) {
      auto g = StrList(n, "gvk");
      if (g.size() != 3) {
        Fail(src.file + ": " + name, "gvk must be [group, version, kind]");
      } else {
        t["gvk"] = g;
      }
    }
    json fields = json::array();
    json required = json::array();
    std::set<std::string> names;
    std::set<int> protos;
    if (n["fields"]) {
      for (const auto& f : n["fields"]) {
        ResolveField(src, name, f, stack, &fields, &required, &names, &protos);
      }
    }
    t["fields"] = fields;
    if (!required.empty()) t["required"] = required;
    stack->erase(name);
    return &(resolved_[name] = t);
  }

  void ResolveField(const SourceType& src, const std::string& tname,
                    const YAML::Node& f, std::set<std::string>* stack,
                    json* fields, json* required, std::set<std::string>* names,
                    std::set<int>* protos) {
    std::string fname = Str(f, "name");
    bool is_inline = f["inline"] && f["inline"].as<bool>();
    std::string where =
        src.file + ": " + tname + "." + (fname.empty() ? "<inline>" : fname);
    int proto = f["proto"] ? f["proto"].as<int>() : 0;
    if (proto != 0 && !protos->insert(proto).second) {
      Fail(where, "protobuf number " + std::to_string(proto) + " used twice");
    }
    std::string type = Str(f, "type");
    if (type.empty()) {
      Fail(where, "no type");
      return;
    }
    if (is_inline) {
      // An embedded struct: its fields appear in this JSON object, while
      // protobuf keeps it as a nested message under `proto`.
      std::string full = Qualify(type, src.pkg, src.imports);
      if (!sources_.count(full)) {
        Fail(where, "unknown inline type " + full);
        return;
      }
      const json* inner = Resolve(full, stack);
      if (!inner) {
        Fail(where, "inline cycle through " + full);
        return;
      }
      fields->push_back(json{{"name", ""},
                             {"proto", proto},
                             {"kind", "object"},
                             {"ref", full},
                             {"inline", true}});
      for (json copy : (*inner)["fields"]) {
        if (copy.value("inline", false)) continue;  // already flattened
        copy.erase("proto");
        std::string cname = copy["name"];
        if (!names->insert(cname).second) {
          Fail(where, "inlined field '" + cname + "' clashes with another");
        }
        if (copy.value("required", false)) required->push_back(cname);
        fields->push_back(copy);
      }
      return;
    }
    if (fname.empty()) {
      Fail(where, "a field without a name");
      return;
    }
    if (!names->insert(fname).second) Fail(where, "field name used twice");
    json out;
    out["name"] = fname;
    if (proto) out["proto"] = proto;
    std::string desc = Str(f, "desc");
    if (desc.empty()) Fail(where, "no desc");
    out["description"] = desc;
    json items;
    bool ok = true;
    if (type.rfind("[]", 0) == 0) {
      out["kind"] = "array";
      ok = ParseElement(type.substr(2), src, where, &items);
      out["items"] = items;
    } else if (type.rfind("map[string]", 0) == 0) {
      out["kind"] = "map";
      ok = ParseElement(type.substr(11), src, where, &items);
      out["items"] = items;
    } else {
      ok = ParseElement(type, src, where, &out);
    }
    if (!ok) return;
    if (!Str(f, "format").empty()) out["format"] = Str(f, "format");
    if (f["default"]) {
      json value;
      if (!DefaultValue(f["default"], out.value("kind", ""), &value)) {
        Fail(where, "default does not fit the field's type");
      } else {
        out["default"] = value;
      }
    }
    if (f["required"] && f["required"].as<bool>()) {
      out["required"] = true;
      required->push_back(fname);
    }
    auto enums = StrList(f, "enum");
    if (!enums.empty()) {
      std::string k = out["kind"];
      if (k != "string" && k != "integer") Fail(where, "enum on a non-scalar");
      out["enum"] = enums;
    }
    for (auto [yk, jk] : {std::pair{"patchStrategy", "patch_strategy"},
                          std::pair{"patchMergeKey", "patch_merge_key"},
                          std::pair{"listType", "list_type"},
                          std::pair{"mapType", "map_type"}}) {
      if (!Str(f, yk).empty()) out[jk] = Str(f, yk);
    }
    auto keys = StrList(f, "listMapKeys");
    if (!keys.empty()) out["list_map_keys"] = keys;
    std::string lt = out.value("list_type", "");
    if (!lt.empty() && lt != "atomic" && lt != "set" && lt != "map") {
      Fail(where, "listType must be atomic, set or map");
    }
    if (lt == "map" && keys.empty())
      Fail(where, "listType map needs listMapKeys");
    // Merge keys and map keys must name fields of the element type.
    std::vector<std::string> must_exist = keys;
    if (out.contains("patch_merge_key")) {
      must_exist.push_back(out["patch_merge_key"]);
    }
    if (!must_exist.empty()) {
      if (!items.contains("ref") || items["kind"] != "object") {
        Fail(where, "merge/map keys need a list of objects");
      } else {
        const SourceType& el = sources_.at(items["ref"]);
        std::set<std::string> el_names;
        CollectNames(el, &el_names);
        for (const auto& k : must_exist) {
          if (!el_names.count(k)) {
            Fail(where, "key '" + k + "' is not a field of " +
                            items["ref"].get<std::string>());
          }
        }
      }
    }
    fields->push_back(out);
  }

  // A field's `default:` as JSON of the field's kind. Structs, lists and
  // maps take any YAML shape (checked when the server loads the schema).
  static bool DefaultValue(const YAML::Node& n, const std::string& kind,
                           json* out) {
    if (kind == "object" || kind == "array" || kind == "map" || kind == "any") {
      *out = ToJson(n);
      return true;
    }
    if (!n.IsScalar()) return false;
    const std::string text = n.as<std::string>();
    try {
      if (kind == "string") {
        *out = text;
      } else if (kind == "integer") {
        size_t used = 0;
        long long v = std::stoll(text, &used);
        if (used != text.size()) return false;
        *out = v;
      } else if (kind == "number") {
        *out = std::stod(text);
      } else if (kind == "boolean") {
        if (text != "true" && text != "false") return false;
        *out = text == "true";
      } else {
        return false;
      }
    } catch (const std::exception&) {
      return false;
    }
    return true;
  }

  // JSON names of a type's fields, following inline fields.
  void CollectNames(const SourceType& src, std::set<std::string>* out) {
    if (!src.node["fields"]) return;
    for (const auto& f : src.node["fields"]) {
      if (f["inline"] && f["inline"].as<bool>()) {
        auto it = sources_.find(Qualify(Str(f, "type"), src.pkg, src.imports));
        if (it != sources_.end()) CollectNames(it->second, out);
      } else {
        out->insert(Str(f, "name"));
      }
    }
  }

  std::map<std::string, SourceType> sources_;
  std::vector<std::string> order_;
  std::vector<Copy> copies_;
  std::map<std::string, json> resolved_;
};

// YAML as JSON: scalars that read as integers, numbers or booleans become
// those, everything else strings (quoted scalars stay strings).
json ToJson(const YAML::Node& n) {
  if (n.IsMap()) {
    json o = json::object();
    for (const auto& kv : n) o[kv.first.as<std::string>()] = ToJson(kv.second);
    return o;
  }
  if (n.IsSequence()) {
    json a = json::array();
    for (const auto& e : n) a.push_back(ToJson(e));
    return a;
  }
  if (!n.IsScalar()) return nullptr;
  const std::string text = n.as<std::string>();
  if (n.Tag() == "!") return text;  // quoted
  if (text == "true" || text == "false") return text == "true";
  if (text == "null" || text == "~") return nullptr;
  char* end = nullptr;
  long long i = std::strtoll(text.c_str(), &end, 10);
  if (!text.empty() && *end == '\0') return i;
  double d = std::strtod(text.c_str(), &end);
  if (!text.empty() && *end == '\0') return d;
  return text;
}

// Checks the resource files and turns them into one JSON list.
class ResourceEmbedder {
 public:
  explicit ResourceEmbedder(const json* schema) {
    for (const json& t : (*schema)["types"]) {
      if (t.contains("gvk")) top_level_[t["name"]] = t["gvk"];
    }
  }

  void Load(const std::string& path, const YAML::Node& root) {
    std::string file = path.substr(path.find_last_of('/') + 1);
    CheckKeys(root, file, {"group", "version", "package", "resources"});
    std::string group = Str(root, "group");
    std::string version = Str(root, "version");
    std::string pkg = Str(root, "package");
    if (version.empty() || pkg.empty()) {
      Fail(file, "version and package are required");
      return;
    }
    for (const auto& r : root["resources"]) Entry(file, group, version, pkg, r);
  }

  json Build() const { return resources_; }

 private:
  static void CheckKeys(const YAML::Node& n, const std::string& where,
                        std::initializer_list<const char*> allowed) {
    if (!n.IsMap()) {
      Fail(where, "not a mapping");
      return;
    }
    for (const auto& kv : n) {
      std::string key = kv.first.as<std::string>();
      bool ok = false;
      for (const char* a : allowed) ok = ok || key == a;
      if (!ok) Fail(where, "unknown key '" + key + "'");
    }
  }

  void Entry(const std::string& file, const std::string& group,
             const std::string& version, const std::string& pkg,
             const YAML::Node& r) {
    std::string kind = Str(r, "kind");
    std::string where = file + ": " + (kind.empty() ? "<no kind>" : kind);
    CheckKeys(r, where, {"kind",         "plural",
                         "singular",     "listKind",
                         "shortNames",   "categories",
                         "namespaced",   "verbs",
                         "subresources", "scale",
                         "keyPrefix",    "nameRule",
                         "columns",      "selectableFields",
                         "strategy",     "virtual",
                         "type",         "generation",
                         "warning",      "warningFrom",
                         "servedFrom",   "servedUntil"});
    std::string plural = Str(r, "plural");
    if (kind.empty() || plural.empty()) {
      Fail(where, "kind and plural are required");
      return;
    }
    json out;
    out["group"] = group;
    out["version"] = version;
    out["kind"] = kind;
    out["plural"] = plural;
    std::string singular = Str(r, "singular");
    if (singular.empty()) {
      singular = kind;
      std::transform(singular.begin(), singular.end(), singular.begin(),
                     [](unsigned char c) { return std::tolower(c); });
    }
    out["singular"] = singular;
    std::string list_kind = Str(r, "listKind");
    out["list_kind"] = list_kind.empty() ? kind + "List" : list_kind;
    out["short_names"] = StrList(r, "shortNames");
    out["categories"] = StrList(r, "categories");
    out["namespaced"] = !r["namespaced"] || r["namespaced"].as<bool>();
    out["virtual"] = r["virtual"] && r["virtual"].as<bool>();
    out["generation"] = r["generation"] && r["generation"].as<bool>();
    out["warning"] = Str(r, "warning");
    // The Kubernetes minor versions that serve it ("1.30": 30; 0: no bound),
    // and the first that sends its deprecation warning.
    static const std::map<std::string, std::string> kMinorKeys = {
        {"servedFrom", "served_from"},
        {"servedUntil", "served_until"},
        {"warningFrom", "warning_from"}};
    for (const auto& [key, out_key] : kMinorKeys) {
      const std::string v = Str(r, key.c_str());
      int minor = 0;
      if (!v.empty() &&
          (v.rfind("1.", 0) != 0 || v.size() < 3 ||
           v.find_first_not_of("0123456789", 2) != std::string::npos ||
           (minor = std::stoi(v.substr(2))) <= 0)) {
        Fail(where, key + " must be 1.MINOR, not '" + v + "'");
      }
      out[out_key] = minor;
    }
    std::vector<std::string> verbs = StrList(r, "verbs");
    if (!r["verbs"]) verbs = AllVerbs();
    for (const std::string& v : verbs) {
      if (std::find(kKnownVerbs.begin(), kKnownVerbs.end(), v) ==
          kKnownVerbs.end()) {
        Fail(where, "unknown verb '" + v + "'");
      }
    }
    std::sort(verbs.begin(), verbs.end());
    out["verbs"] = verbs;
    std::string type = Str(r, "type");
    if (type.empty()) type = pkg + "." + kind;
    auto gvk = top_level_.find(type);
    if (gvk == top_level_.end()) {
      Fail(where, "type " + type + " is not a declared top-level kind (gvk)");
    } else if ((*gvk).second != json{group, version, kind}) {
      Fail(where, "type " + type + " declares another group/version/kind");
    }
    out["schema_type"] = type;
    std::string prefix = Str(r, "keyPrefix");
    if (!out["virtual"].get<bool>()) {
      if (prefix.rfind("/registry/", 0) != 0 || prefix.back() != '/') {
        Fail(where, "keyPrefix must start with /registry/ and end with /");
      }
    }
    out["key_prefix"] = prefix;
    std::string rule = Str(r, "nameRule");
    if (rule.empty()) rule = "subdomain";
    if (rule != "subdomain" && rule != "label" && rule != "dns1035" &&
        rule != "path") {
      Fail(where, "nameRule must be subdomain, label, dns1035 or path");
    }
    out["name_rule"] = rule;
    out["strategy"] = Str(r, "strategy");
    json subs = json::array();
    bool has_scale = false;
    if (r["subresources"]) {
      for (const auto& s : r["subresources"]) {
        std::string sw = where + " subresource";
        CheckKeys(s, sw, {"name", "group", "version", "kind", "verbs"});
        json sub;
        std::string name = Str(s, "name");
        sub["name"] = name;
        if (name.empty()) Fail(sw, "no name");
        std::vector<std::string> sverbs = StrList(s, "verbs");
        std::string sgroup = Str(s, "group"), skind = Str(s, "kind");
        std::string sversion = Str(s, "version");
        if (name == "status" && skind.empty()) {
          sgroup = group;
          skind = kind;
        } else if (name == "scale" && skind.empty()) {
          sgroup = "autoscaling";
          skind = "Scale";
          has_scale = true;
        } else if (skind.empty()) {
          Fail(sw + " " + name, "needs a kind");
        }
        if (name == "scale") has_scale = true;
        if (!s["verbs"]) sverbs = {"get", "patch", "update"};
        std::sort(sverbs.begin(), sverbs.end());
        sub["group"] = sgroup;
        sub["version"] = sversion.empty() ? "v1" : sversion;
        sub["kind"] = skind;
        sub["verbs"] = sverbs;
        subs.push_back(sub);
      }
    }
    std::sort(subs.begin(), subs.end(), [](const json& a, const json& b) {
      return a["name"] < b["name"];
    });
    out["subresources"] = subs;
    if (has_scale) {
      json scale = {{"spec_replicas_path", "spec.replicas"},
                    {"status_replicas_path", "status.replicas"},
                    {"selector_path", "spec.selector"}};
      if (r["scale"]) {
        CheckKeys(r["scale"], where + " scale",
                  {"specReplicasPath", "statusReplicasPath", "selectorPath"});
        for (auto [yk, jk] :
             {std::pair{"specReplicasPath", "spec_replicas_path"},
              std::pair{"statusReplicasPath", "status_replicas_path"},
              std::pair{"selectorPath", "selector_path"}}) {
          if (!Str(r["scale"], yk).empty()) scale[jk] = Str(r["scale"], yk);
        }
      }
      out["scale"] = scale;
    } else if (r["scale"]) {
      Fail(where, "scale without a scale subresource");
    }
    json columns = json::array();
    if (r["columns"]) {
      for (const auto& c : r["columns"]) {
        std::string cw = where + " column " + Str(c, "name");
        CheckKeys(
            c, cw,
            {"name", "type", "format", "jsonPath", "cell", "priority", "desc"});
        json col;
        col["name"] = Str(c, "name");
        col["type"] = Str(c, "type").empty() ? "string" : Str(c, "type");
        col["format"] = Str(c, "format");
        col["json_path"] = Str(c, "jsonPath");
        col["cell"] = Str(c, "cell");
        col["priority"] = c["priority"] ? c["priority"].as<int>() : 0;
        col["description"] = Str(c, "desc");
        if (col["name"] == "") Fail(cw, "no name");
        if (col["json_path"] == "" && col["cell"] == "") {
          Fail(cw, "needs a jsonPath or a cell");
        }
        if (col["description"] == "") Fail(cw, "no desc");
        columns.push_back(col);
      }
    }
    out["columns"] = columns;
    out["selectable_fields"] = StrList(r, "selectableFields");
    std::string id = group + "/" + version + "/" + plural;
    if (!ids_.insert(id).second) Fail(where, id + " is declared twice");
    resources_.push_back(out);
  }

  static std::vector<std::string> AllVerbs() {
    return {"create", "delete", "deletecollection", "get",
            "list",   "patch",  "update",           "watch"};
  }

  inline static const std::vector<std::string> kKnownVerbs = {
      "create", "delete", "deletecollection", "get",
      "list",   "patch",  "update",           "watch"};

  std::map<std::string, json> top_level_;
  std::set<std::string> ids_;
  json resources_ = json::array();
};

bool WriteSource(const std::string& path, const std::string& schema,
                 const std::string& resources) {
  const std::string delim = "KMOCK_SCHEMA";
  for (const std::string* text : {&schema, &resources}) {
    if (text->find(")" + delim + "\"") != std::string::npos) {
      std::cerr << "schema_embed: the schema text contains the delimiter\n";
      return false;
    }
  }
  std::ofstream out(path);
  out << "// Generated by kmock_schema_embed from api/types/*.yaml and "
         "api/resources/*.yaml. Do not edit.\n"
      << "namespace kmock::api {\n"
      << "extern const char kEmbeddedSchemaJson[];\n"
      << "extern const char kEmbeddedResourcesJson[];\n"
      << "const char kEmbeddedSchemaJson[] = R\"" << delim << "(" << schema
      << ")" << delim << "\";\n"
      << "const char kEmbeddedResourcesJson[] = R\"" << delim << "("
      << resources << ")" << delim << "\";\n"
      << "}  // namespace kmock::api\n";
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: kmock_schema_embed OUTPUT.cc INPUT.yaml...\n";
    return 2;
  }
  std::vector<std::string> inputs(argv + 2, argv + argc);
  std::sort(inputs.begin(), inputs.end());
  Embedder e;
  std::vector<std::pair<std::string, YAML::Node>> resource_files;
  for (const auto& in : inputs) {
    YAML::Node root;
    try {
      root = YAML::LoadFile(in);
    } catch (const YAML::Exception& ex) {
      Fail(in, std::string("cannot parse: ") + ex.what());
      continue;
    }
    if (root.IsMap() && root["resources"]) {
      resource_files.emplace_back(in, root);
    } else {
      e.Load(in);
    }
  }
  json doc;
  json resources = json::array();
  if (g_errors.empty()) {
    try {
      doc = e.Build();
      ResourceEmbedder r(&doc);
      for (const auto& [path, root] : resource_files) r.Load(path, root);
      resources = r.Build();
    } catch (const std::exception& ex) {
      Fail("schema", std::string("malformed definition: ") + ex.what());
    }
  }
  if (!g_errors.empty()) {
    for (const auto& err : g_errors)
      std::cerr << "schema error: " << err << "\n";
    std::cerr << "schema_embed: " << g_errors.size()
              << " error(s) in api/types/*.yaml or api/resources/*.yaml\n";
    std::remove(argv[1]);
    return 1;
  }
  if (!WriteSource(argv[1], doc.dump(), resources.dump())) return 1;
  return 0;
}
