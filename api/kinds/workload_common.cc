// Selectors, pod templates and the pod-template-hash of the apps kinds.
#include "api/kinds/workload_common.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "api/kinds/pod.h"
#include "api/kinds/util.h"
#include "api/validation.h"
#include "common/json_view.h"

namespace kmock::api::kinds {

namespace {

// Go's %q of a string.
std::string Quote(const std::string& s) { return FieldValueString(json(s)); }

std::vector<std::string> Strings(const json& arr) {
  std::vector<std::string> out;
  if (!arr.is_array()) return out;
  for (const json& v : arr) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::string GoStringSlice(const json* values) {
  if (!values || !values->is_array()) return "[]string(nil)";
  std::string out = "[]string{";
  bool first = true;
  for (const std::string& v : Strings(*values)) {
    if (!first) out += ", ";
    first = false;
    out += Quote(v);
  }
  return out + "}";
}

// Drops null members and elements, so that an absent field and a null one
// hash alike, as they decode alike.
json WithoutNulls(const json& v) {
  if (v.is_object()) {
    json out = json::object();
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!it->is_null()) out[it.key()] = WithoutNulls(*it);
    }
    return out;
  }
  if (v.is_array()) {
    json out = json::array();
    for (const json& e : v) out.push_back(WithoutNulls(e));
    return out;
  }
  return v;
}

// Prefixes the field path of every cause: "spec.x" -> "spec.template.spec.x".
}  // namespace

void AppendUnder(const FieldErrors& inner, const std::string& prefix,
                 FieldErrors* errs) {
  for (StatusCause c : inner.causes()) {
    c.field = prefix + c.field;
    errs->Add(std::move(c));
  }
}

bool LabelSelectorMatches(const json& selector, const json& labels) {
  if (!selector.is_object()) return false;
  auto label = [&](const std::string& key) -> const json* {
    if (!labels.is_object()) return nullptr;
    auto it = labels.find(key);
    return it == labels.end() || !it->is_string() ? nullptr : &*it;
  };
  if (const json* ml = Find(selector, {"matchLabels"}); ml && ml->is_object()) {
    for (auto it = ml->begin(); it != ml->end(); ++it) {
      const json* have = label(it.key());
      if (!have || *have != *it) return false;
    }
  }
  for (const json& req : Array(selector, {"matchExpressions"})) {
    std::string key = Str(req, {"key"});
    std::string op = Str(req, {"operator"});
    std::vector<std::string> values = Strings(ValueAt(req, "values"));
    const json* have = label(key);
    bool in = have && std::find(values.begin(), values.end(),
                                have->get<std::string>()) != values.end();
    if (op == "In") {
      if (!in) return false;
    } else if (op == "NotIn") {
      if (in) return false;
    } else if (op == "Exists") {
      if (!have) return false;
    } else if (op == "DoesNotExist") {
      if (have) return false;
    } else {
      return false;
    }
  }
  return true;
}

std::string LabelSelectorString(const json& selector) {
  // (key, rendering) pairs, sorted by key as labels.Selector keeps them.
  std::vector<std::pair<std::string, std::string>> reqs;
  if (const json* ml = Find(selector, {"matchLabels"}); ml && ml->is_object()) {
    for (auto it = ml->begin(); it != ml->end(); ++it) {
      std::string v = it->is_string() ? it->get<std::string>() : "";
      reqs.emplace_back(it.key(), it.key() + "=" + v);
    }
  }
  for (const json& req : Array(selector, {"matchExpressions"})) {
    std::string key = Str(req, {"key"});
    std::string op = Str(req, {"operator"});
    std::vector<std::string> values = Strings(ValueAt(req, "values"));
    std::set<std::string> sorted(values.begin(), values.end());
    std::string list;
    for (const std::string& v : sorted) {
      if (!list.empty()) list += ",";
      list += v;
    }
    if (op == "In") {
      reqs.emplace_back(key, key + " in (" + list + ")");
    } else if (op == "NotIn") {
      reqs.emplace_back(key, key + " notin (" + list + ")");
    } else if (op == "Exists") {
      reqs.emplace_back(key, key);
    } else if (op == "DoesNotExist") {
      reqs.emplace_back(key, "!" + key);
    }
  }
  std::stable_sort(reqs.begin(), reqs.end(), [](const auto& a, const auto& b) {
    return a.first < b.first;
  });
  std::string out;
  for (const auto& [key, text] : reqs) {
    if (!out.empty()) out += ",";
    out += text;
  }
  return out;
}

std::string GoStringMap(const json& map) {
  if (!map.is_object()) return "map[string]string(nil)";
  // Go prints maps with their keys sorted, as json objects are kept.
  std::string out = "map[string]string{";
  bool first = true;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (!first) out += ", ";
    first = false;
    out += Quote(it.key()) + ":" +
           Quote(it->is_string() ? it->get<std::string>() : "");
  }
  return out + "}";
}

std::string GoLabelSelector(const json& selector) {
  std::string out = "v1.LabelSelector{MatchLabels:";
  const json* ml = Find(selector, {"matchLabels"});
  out += GoStringMap(ml ? *ml : json());
  out += ", MatchExpressions:";
  const json* me = Find(selector, {"matchExpressions"});
  if (!me || !me->is_array()) {
    out += "[]v1.LabelSelectorRequirement(nil)";
  } else {
    out += "[]v1.LabelSelectorRequirement{";
    for (size_t i = 0; i < me->size(); ++i) {
      const json& r = (*me)[i];
      if (i > 0) out += ", ";
      out += "v1.LabelSelectorRequirement{Key:" + Quote(Str(r, {"key"})) +
             ", Operator:" + Quote(Str(r, {"operator"})) +
             ", Values:" + GoStringSlice(Find(r, {"values"})) + "}";
    }
    out += "}";
  }
  return out + "}";
}

void InvalidRendered(FieldErrors* errs, const std::string& field,
                     const std::string& rendered_value,
                     const std::string& detail) {
  errs->Add(StatusCause{"FieldValueInvalid",
                        "Invalid value: " + rendered_value + ": " + detail,
                        field});
}

void DefaultPodTemplate(json& pod_template) {
  // A template has a pod's shape (metadata and spec), so the pod's scheme
  // defaults apply to it as they stand.
  DefaultPod(pod_template);
}

void ValidateNonNegative(const json& obj,
                         std::initializer_list<const char*> path,
                         const std::string& field, FieldErrors* errs) {
  const json* v = Find(obj, path);
  if (v && v->is_number() && v->get<int64_t>() < 0) {
    errs->Invalid(field, v->get<int64_t>(),
                  "must be greater than or equal to 0");
  }
}

bool ValidateLabelSelector(const json& selector, const std::string& path,
                           FieldErrors* errs) {
  FieldErrors sel;
  ValidateLabels(ValueAt(selector, "matchLabels"), path + ".matchLabels", &sel);
  const json& exprs = Array(selector, {"matchExpressions"});
  for (size_t i = 0; i < exprs.size(); ++i) {
    const json& r = exprs[i];
    std::string at = path + ".matchExpressions[" + std::to_string(i) + "]";
    std::string op = Str(r, {"operator"});
    std::vector<std::string> values = Strings(ValueAt(r, "values"));
    if (op == "In" || op == "NotIn") {
      if (values.empty()) {
        sel.Required(at + ".values",
                     "must be specified when `operator` is 'In' or 'NotIn'");
      }
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (!values.empty()) {
        sel.Forbidden(at + ".values",
                      "may not be specified when `operator` is 'Exists' or "
                      "'DoesNotExist'");
      }
    } else {
      sel.Invalid(at + ".operator", op, "not a valid selector operator");
    }
    ValidateQualifiedName(Str(r, {"key"}), at + ".key", &sel);
    for (size_t j = 0; j < values.size(); ++j) {
      for (const std::string& m : IsValidLabelValue(values[j])) {
        sel.Invalid(at + ".values[" + std::to_string(j) + "]", values[j], m);
      }
    }
  }
  errs->Append(sel);
  return sel.empty();
}

void ValidateSelectorAndTemplate(const json& spec, FieldErrors* errs,
                                 const std::string& kind) {
  const json* selector = Find(spec, {"selector"});
  if (selector && !selector->is_object()) selector = nullptr;
  bool selector_ok = true;
  size_t selector_size = 0;
  if (!selector) {
    errs->Required("spec.selector");
  } else {
    selector_ok = ValidateLabelSelector(*selector, "spec.selector", errs);
    const json& exprs = Array(*selector, {"matchExpressions"});
    const json* ml = Find(*selector, {"matchLabels"});
    selector_size = (ml && ml->is_object() ? ml->size() : 0) + exprs.size();
    if (selector_size == 0) {
      InvalidRendered(errs, "spec.selector", GoLabelSelector(*selector),
                      "empty selector is invalid for " + kind);
    }
  }
  const json* templ = Find(spec, {"template"});
  json empty = json::object();
  const json& t = templ && templ->is_object() ? *templ : empty;
  if (!selector_ok) {
    InvalidRendered(errs, "spec.selector", GoLabelSelector(*selector),
                    "invalid label selector");
    return;
  }
  const json* labels = Find(t, {"metadata", "labels"});
  json no_labels;
  const json& tl = labels ? *labels : no_labels;
  // An empty selector selects everything; a missing one nothing.
  bool selects_everything = selector && selector_size == 0;
  if (!selects_everything &&
      !LabelSelectorMatches(selector ? *selector : json(), tl)) {
    InvalidRendered(errs, "spec.template.metadata.labels", GoStringMap(tl),
                    "`selector` does not match template `labels`");
  }
  ValidateWorkloadTemplate(t, kind, errs);
}

void ValidateWorkloadTemplate(const json& t, const std::string& kind,
                              FieldErrors* errs) {
  const json* labels = Find(t, {"metadata", "labels"});
  json no_labels;
  const json& tl = labels ? *labels : no_labels;
  ValidateLabels(tl, "spec.template.labels", errs);
  if (const json* ann = Find(t, {"metadata", "annotations"})) {
    ValidateAnnotations(*ann, "spec.template.annotations", errs);
  }
  json pod = {{"spec", t.contains("spec") ? t["spec"] : json::object()}};
  FieldErrors pod_errs;
  ValidatePod(pod, &pod_errs);
  AppendUnder(pod_errs, "spec.template.", errs);
  if (!Array(pod, {"spec", "ephemeralContainers"}).empty()) {
    errs->Forbidden("spec.template.spec.ephemeralContainers",
                    "ephemeral containers not allowed in pod template");
  }
  std::string restart = Str(pod, {"spec", "restartPolicy"});
  if (restart != "Always") {
    errs->NotSupported("spec.template.spec.restartPolicy", restart, {"Always"});
  }
  if (const json* ads = Find(pod, {"spec", "activeDeadlineSeconds"});
      ads && ads->is_number()) {
    errs->Invalid("spec.template.spec.activeDeadlineSeconds", *ads,
                  kind == "daemonset"
                      ? "activeDeadlineSeconds must be nil for daemonsets"
                      : "activeDeadlineSeconds in " +
                            std::string(kind == "replicationcontroller"
                                            ? "ReplicationController"
                                            : "ReplicaSet") +
                            " is not Supported");
  }
}

void ValidateSelectorUnchanged(const json& obj, const json& old,
                               FieldErrors* errs) {
  const json* now = Find(obj, {"spec", "selector"});
  const json* before = Find(old, {"spec", "selector"});
  json none;
  if ((now ? *now : none) != (before ? *before : none)) {
    InvalidRendered(errs, "spec.selector",
                    now ? GoLabelSelector(*now) : std::string("null"),
                    "field is immutable");
  }
}

std::string TemplateContainerNames(const json& pod_template) {
  std::string out;
  const json& cs = Array(pod_template, {"spec", "containers"});
  for (size_t i = 0; i < cs.size(); ++i) {
    if (i > 0) out += ",";
    out += Str(cs[i], {"name"});
  }
  return out;
}

std::string TemplateContainerImages(const json& pod_template) {
  std::string out;
  const json& cs = Array(pod_template, {"spec", "containers"});
  for (size_t i = 0; i < cs.size(); ++i) {
    if (i > 0) out += ",";
    out += Str(cs[i], {"image"});
  }
  return out;
}

uint32_t Fnv32a(std::string_view data, uint32_t hash) {
  for (unsigned char c : data) {
    hash ^= c;
    hash *= 16777619u;
  }
  return hash;
}

std::string SafeEncodeString(std::string_view s) {
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) out.push_back(kAlphabet[c % kAlphabet.size()]);
  return out;
}

std::string PodTemplateHash(const json& pod_template,
                            std::optional<int32_t> collision_count) {
  uint32_t h = Fnv32a(WithoutNulls(pod_template).dump());
  if (collision_count) {
    uint32_t c = static_cast<uint32_t>(*collision_count);
    char bytes[4] = {static_cast<char>(c & 0xff),
                     static_cast<char>((c >> 8) & 0xff),
                     static_cast<char>((c >> 16) & 0xff),
                     static_cast<char>((c >> 24) & 0xff)};
    h = Fnv32a(std::string_view(bytes, 4), h);
  }
  return SafeEncodeString(std::to_string(h));
}

// Go's %#v of an intstr.IntOrString held in JSON (absent: the zero value).
std::string GoIntOrString(const json* v) {
  if (v && v->is_string()) {
    return "intstr.IntOrString{Type:1, IntVal:0, StrVal:" +
           FieldValueString(*v) + "}";
  }
  int64_t n = v && v->is_number() ? v->get<int64_t>() : 0;
  return "intstr.IntOrString{Type:0, IntVal:" + std::to_string(n) +
         ", StrVal:\"\"}";
}

// The percentage of "25%", or nullopt when not a valid percent string.
std::optional<int64_t> Percent(const json* v) {
  if (!v || !v->is_string()) return std::nullopt;
  const std::string s = v->get<std::string>();
  if (s.size() < 2 || s.back() != '%') return std::nullopt;
  int64_t n = 0;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    n = n * 10 + (s[i] - '0');
    if (n > 1000000000) n = 1000000000;
  }
  return n;
}

// intstr's IntValue of a value that is not a percentage: the number, or a
// string parsed as a decimal (0 when it is not one).
int64_t IntOrPercentValue(const json* v) {
  if (auto p = Percent(v)) return *p;
  if (!v) return 0;
  if (v->is_number()) return v->get<int64_t>();
  if (v->is_string()) {
    try {
      size_t used = 0;
      const std::string s = v->get<std::string>();
      int64_t n = std::stoll(s, &used);
      return used == s.size() ? n : 0;
    } catch (const std::exception&) {
      return 0;
    }
  }
  return 0;
}

void ValidatePositiveIntOrPercent(const json* v, const std::string& field,
                                  FieldErrors* errs) {
  if (v && v->is_string()) {
    if (!Percent(v)) {
      InvalidRendered(errs, field, GoIntOrString(v),
                      "a valid percent string must be a numeric string "
                      "followed by an ending '%' (e.g. '1%',  or '93%', "
                      "regex used for validation is '[0-9]+%')");
    }
  } else if (v && v->is_number() && v->get<int64_t>() < 0) {
    errs->Invalid(field, v->get<int64_t>(),
                  "must be greater than or equal to 0");
  }
}

}  // namespace kmock::api::kinds
