#include "api/validation.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace kmock::api {

namespace {

using nlohmann::json;

const char kDns1123LabelFmt[] = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const char kDns1123SubdomainFmt[] =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const char kQualifiedNameFmt[] = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const char kLabelValueFmt[] = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const char kQualifiedNameErrMsg[] =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character";

std::string MaxLenError(size_t n) {
  return "must be no more than " + std::to_string(n) + " characters";
}

// apimachinery's RegexError: the message, examples, and the pattern.
std::string RegexError(const std::string& msg, const std::string& fmt,
                       const std::vector<std::string>& examples) {
  if (examples.empty()) {
    return msg + " (regex used for validation is '" + fmt + "')";
  }
  std::string out = msg + " (e.g. ";
  for (size_t i = 0; i < examples.size(); ++i) {
    if (i > 0) out += " or ";
    out += "'" + examples[i] + "', ";
  }
  out += "regex used for validation is '" + fmt + "')";
  return out;
}

bool IsLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)); }

bool MatchesDnsLabel(const std::string& s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back()))
    return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsLowerAlnum(c) || c == '-'; });
}

bool MatchesDnsSubdomain(const std::string& s) {
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string part = s.substr(
        start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!MatchesDnsLabel(part)) return false;
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}

bool MatchesQualifiedNamePart(const std::string& s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return IsAlnum(c) || c == '-' || c == '_' || c == '.';
  });
}

std::string Str(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

json ValueOrNull(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? json(nullptr) : *it;
}

bool IsStandardFinalizer(const std::string& name) {
  return name == "kubernetes" || name == "orphan" ||
         name == "foregroundDeletion";
}

}  // namespace

std::vector<std::string> IsDNS1123Label(const std::string& value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63));
  if (!MatchesDnsLabel(value)) {
    errs.push_back(RegexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric "
        "characters or '-', and must start and end with an alphanumeric "
        "character",
        kDns1123LabelFmt, {"my-name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> IsDNS1123Subdomain(const std::string& value) {
  std::vector<std::string> errs;
  if (value.size() > 253) errs.push_back(MaxLenError(253));
  if (!MatchesDnsSubdomain(value)) {
    errs.push_back(RegexError(
        "a lowercase RFC 1123 subdomain must consist of lower case "
        "alphanumeric characters, '-' or '.', and must start and end with an "
        "alphanumeric character",
        kDns1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

std::vector<std::string> IsQualifiedName(const std::string& value) {
  std::vector<std::string> errs;
  std::string name;
  size_t slashes = std::count(value.begin(), value.end(), '/');
  if (slashes == 0) {
    name = value;
  } else if (slashes == 1) {
    size_t slash = value.find('/');
    std::string prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (const std::string& m : IsDNS1123Subdomain(prefix)) {
        errs.push_back("prefix part " + m);
      }
    }
  } else {
    errs.push_back("a qualified name " +
                   RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                              {"MyName", "my.name", "123-abc"}) +
                   " with an optional DNS subdomain prefix and '/' (e.g. "
                   "'example.com/MyName')");
    return errs;
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part " + MaxLenError(63));
  }
  if (!MatchesQualifiedNamePart(name)) {
    errs.push_back("name part " + RegexError(kQualifiedNameErrMsg,
                                             kQualifiedNameFmt,
                                             {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> IsValidLabelValue(const std::string& value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63));
  if (!value.empty() && !MatchesQualifiedNamePart(value)) {
    errs.push_back(RegexError(
        "a valid label must be an empty string or consist of alphanumeric "
        "characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character",
        kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

std::vector<std::string> IsValidPortName(const std::string& port) {
  std::vector<std::string> errs;
  if (port.size() > 15) errs.push_back(MaxLenError(15));
  bool charset =
      !port.empty() && std::all_of(port.begin(), port.end(), [](char c) {
        return IsLowerAlnum(c) || c == '-';
      });
  if (!charset) {
    errs.push_back(
        "must contain only alpha-numeric characters (a-z, 0-9), and hyphens "
        "(-)");
  }
  bool letter = std::any_of(port.begin(), port.end(),
                            [](char c) { return c >= 'a' && c <= 'z'; });
  if (!letter) errs.push_back("must contain at least one letter (a-z)");
  if (port.find("--") != std::string::npos) {
    errs.push_back("must not contain consecutive hyphens");
  }
  if (!port.empty() && (port.front() == '-' || port.back() == '-')) {
    errs.push_back("must not begin or end with a hyphen");
  }
  return errs;
}

std::vector<std::string> IsValidPortNum(int64_t port) {
  if (port >= 1 && port <= 65535) return {};
  return {"must be between 1 and 65535, inclusive"};
}

std::vector<std::string> ValidateNameByRule(const std::string& rule,
                                            const std::string& name,
                                            bool prefix) {
  std::string value = name;
  // A generateName prefix may end in '-': check it as if it did not.
  if (prefix && !value.empty() && value.back() == '-') value.back() = 'a';
  if (rule == "label") return IsDNS1123Label(value);
  if (rule == "dns1035") return IsDNS1035Label(value);
  if (rule == "path") return IsPathSegmentName(value);
  return IsDNS1123Subdomain(value);
}

std::vector<std::string> IsDNS1035Label(const std::string& value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63));
  bool ok = !value.empty() && value.front() >= 'a' && value.front() <= 'z' &&
            MatchesDnsLabel(value);
  if (!ok) {
    errs.push_back(RegexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters "
        "or '-', start with an alphabetic character, and end with an "
        "alphanumeric character",
        "[a-z]([-a-z0-9]*[a-z0-9])?", {"my-name", "abc-123"}));
  }
  return errs;
}

std::vector<std::string> IsPathSegmentName(const std::string& value) {
  if (value == "." || value == "..") {
    return {"may not be '" + value + "'"};
  }
  std::vector<std::string> errs;
  for (const char* bad : {"/", "%"}) {
    if (value.find(bad) != std::string::npos) {
      errs.push_back(std::string("may not contain '") + bad + "'");
    }
  }
  return errs;
}

void ValidateDNS1123Label(const std::string& value, const std::string& path,
                          FieldErrors* errs) {
  for (const std::string& m : IsDNS1123Label(value)) {
    errs->Invalid(path, value, m);
  }
}

void ValidateDNS1123Subdomain(const std::string& value, const std::string& path,
                              FieldErrors* errs) {
  for (const std::string& m : IsDNS1123Subdomain(value)) {
    errs->Invalid(path, value, m);
  }
}

void ValidateQualifiedName(const std::string& value, const std::string& path,
                           FieldErrors* errs) {
  for (const std::string& m : IsQualifiedName(value)) {
    errs->Invalid(path, value, m);
  }
}

void ValidateLabels(const json& labels, const std::string& path,
                    FieldErrors* errs) {
  if (!labels.is_object()) return;
  for (auto it = labels.begin(); it != labels.end(); ++it) {
    ValidateQualifiedName(it.key(), path, errs);
    std::string v = it->is_string() ? it->get<std::string>() : "";
    for (const std::string& m : IsValidLabelValue(v)) {
      errs->Invalid(path, v, m);
    }
  }
}

void ValidateAnnotations(const json& annotations, const std::string& path,
                         FieldErrors* errs) {
  if (!annotations.is_object()) return;
  size_t total = 0;
  for (auto it = annotations.begin(); it != annotations.end(); ++it) {
    std::string lower = it.key();
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    for (const std::string& m : IsQualifiedName(lower)) {
      errs->Invalid(path, it.key(), m);
    }
    total += it.key().size();
    if (it->is_string()) total += it->get_ref<const std::string&>().size();
  }
  if (total > kTotalAnnotationSizeLimit) {
    errs->TooLong(path, "", static_cast<int>(kTotalAnnotationSizeLimit));
  }
}

void ValidateFinalizers(const json& finalizers, const std::string& path,
                        FieldErrors* errs) {
  if (!finalizers.is_array()) return;
  bool orphan = false, foreground = false;
  for (const json& f : finalizers) {
    std::string name = f.is_string() ? f.get<std::string>() : "";
    for (const std::string& m : IsQualifiedName(name)) {
      errs->Invalid(path, name, m);
    }
    if (name.find('/') == std::string::npos && !IsStandardFinalizer(name)) {
      errs->Invalid(path, name,
                    "name is neither a standard finalizer name nor is it "
                    "fully qualified");
    }
    if (name == "orphan") orphan = true;
    if (name == "foregroundDeletion") foreground = true;
  }
  if (orphan && foreground) {
    errs->Invalid(path, finalizers,
                  "finalizer orphan and foregroundDeletion cannot be both set");
  }
}

void ValidateOwnerReferences(const json& refs, const std::string& path,
                             FieldErrors* errs) {
  if (!refs.is_array()) return;
  std::string first_controller;
  for (const json& ref : refs) {
    std::string api_version = Str(ref, "apiVersion");
    std::string version = api_version.substr(api_version.find('/') + 1);
    if (api_version.find('/') == std::string::npos) version = api_version;
    if (version.empty()) {
      errs->Invalid(path + ".apiVersion", api_version,
                    "version must not be empty");
    }
    if (Str(ref, "kind").empty()) {
      errs->Invalid(path + ".kind", "", "kind must not be empty");
    }
    if (Str(ref, "name").empty()) {
      errs->Invalid(path + ".name", "", "name must not be empty");
    }
    if (Str(ref, "uid").empty()) {
      errs->Invalid(path + ".uid", "", "uid must not be empty");
    }
    auto c = ref.is_object() ? ref.find("controller") : ref.end();
    if (ref.is_object() && c != ref.end() && c->is_boolean() &&
        c->get<bool>()) {
      std::string current = Str(ref, "kind") + "/" + Str(ref, "name");
      if (!first_controller.empty()) {
        errs->Invalid(path, refs,
                      "Only one reference can have Controller set to true. "
                      "Found \"true\" in references for " +
                          first_controller + " and " + current);
      } else {
        first_controller = current;
      }
    }
  }
}

void ValidateObjectMeta(const json& meta, bool namespaced,
                        const std::string& name_rule, FieldErrors* errs) {
  std::string name = Str(meta, "name");
  std::string generate_name = Str(meta, "generateName");
  if (!generate_name.empty()) {
    for (const std::string& m :
         ValidateNameByRule(name_rule, generate_name, true)) {
      errs->Invalid("metadata.generateName", generate_name, m);
    }
  }
  if (name.empty()) {
    errs->Required("metadata.name", "name or generateName is required");
  } else {
    for (const std::string& m : ValidateNameByRule(name_rule, name, false)) {
      errs->Invalid("metadata.name", name, m);
    }
  }
  std::string ns = Str(meta, "namespace");
  if (namespaced) {
    if (ns.empty()) {
      errs->Required("metadata.namespace");
    } else {
      for (const std::string& m : IsDNS1123Label(ns)) {
        errs->Invalid("metadata.namespace", ns, m);
      }
    }
  } else if (!ns.empty()) {
    errs->Forbidden("metadata.namespace", "not allowed on this type");
  }
  json generation = ValueOrNull(meta, "generation");
  if (generation.is_number_integer() && generation.get<int64_t>() < 0) {
    errs->Invalid("metadata.generation", generation,
                  "must be greater than or equal to 0");
  }
  ValidateLabels(ValueOrNull(meta, "labels"), "metadata.labels", errs);
  ValidateAnnotations(ValueOrNull(meta, "annotations"), "metadata.annotations",
                      errs);
  ValidateOwnerReferences(ValueOrNull(meta, "ownerReferences"),
                          "metadata.ownerReferences", errs);
  ValidateFinalizers(ValueOrNull(meta, "finalizers"), "metadata.finalizers",
                     errs);
}

void ValidateObjectMetaUpdate(const json& new_meta, const json& old_meta,
                              FieldErrors* errs) {
  if (!ValueOrNull(old_meta, "deletionTimestamp").is_null()) {
    std::set<std::string> old_set;
    json old_f = ValueOrNull(old_meta, "finalizers");
    if (old_f.is_array()) {
      for (const json& f : old_f) {
        if (f.is_string()) old_set.insert(f.get<std::string>());
      }
    }
    std::set<std::string> extra;
    json new_f = ValueOrNull(new_meta, "finalizers");
    if (new_f.is_array()) {
      for (const json& f : new_f) {
        if (f.is_string() && !old_set.count(f.get<std::string>())) {
          extra.insert(f.get<std::string>());
        }
      }
    }
    if (!extra.empty()) {
      std::string list = "[]string{";
      bool first = true;
      for (const std::string& e : extra) {
        if (!first) list += ", ";
        first = false;
        list += "\"" + e + "\"";
      }
      list += "}";
      errs->Forbidden("metadata.finalizers",
                      "no new finalizers can be added if the object is being "
                      "deleted, found new finalizers " +
                          list);
    }
  }
  if (Str(new_meta, "resourceVersion").empty()) {
    errs->Invalid("metadata.resourceVersion", "",
                  "must be specified for an update");
  }
  json new_gen = ValueOrNull(new_meta, "generation");
  json old_gen = ValueOrNull(old_meta, "generation");
  int64_t ng = new_gen.is_number_integer() ? new_gen.get<int64_t>() : 0;
  int64_t og = old_gen.is_number_integer() ? old_gen.get<int64_t>() : 0;
  if (ng < og) {
    errs->Invalid("metadata.generation", ng, "must not be decremented");
  }
  for (const char* field :
       {"name", "namespace", "uid", "creationTimestamp", "deletionTimestamp",
        "deletionGracePeriodSeconds"}) {
    json nv = ValueOrNull(new_meta, field);
    json ov = ValueOrNull(old_meta, field);
    // An absent string field and "" are the same value.
    if (nv.is_null() && ov.is_string() && ov.get<std::string>().empty())
      continue;
    if (ov.is_null() && nv.is_string() && nv.get<std::string>().empty())
      continue;
    if (nv != ov) {
      json shown = nv;
      if (shown.is_null() &&
          (std::string(field) == "name" || std::string(field) == "namespace" ||
           std::string(field) == "uid")) {
        shown = "";
      }
      errs->Immutable(std::string("metadata.") + field, shown);
    }
  }
  ValidateLabels(ValueOrNull(new_meta, "labels"), "metadata.labels", errs);
  ValidateAnnotations(ValueOrNull(new_meta, "annotations"),
                      "metadata.annotations", errs);
  ValidateOwnerReferences(ValueOrNull(new_meta, "ownerReferences"),
                          "metadata.ownerReferences", errs);
}

}  // namespace kmock::api
