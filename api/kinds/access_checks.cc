#include "api/kinds/access_checks.h"

#include <string>
#include <vector>

#include "api/kinds/util.h"
#include "api/kinds/workload_common.h"

namespace kmock::api::kinds {

namespace {

using nlohmann::json;

constexpr char kRbacGroup[] = "rbac.authorization.k8s.io";

bool Empty(const json& rule, const char* key) {
  const json* v = Find(rule, {key});
  return v == nullptr || !v->is_array() || v->empty();
}

void ValidateRules(const json& obj, bool namespaced, FieldErrors* errs) {
  const json& rules = Array(obj, {"rules"});
  for (size_t i = 0; i < rules.size(); ++i) {
    const json& rule = rules[i];
    const std::string path = "rules[" + std::to_string(i) + "].";
    if (Empty(rule, "verbs")) {
      errs->Required(path + "verbs", "verbs must contain at least one value");
    }
    if (!Empty(rule, "nonResourceURLs")) {
      if (namespaced) {
        errs->Invalid(path + "nonResourceURLs", rule["nonResourceURLs"],
                      "namespaced rules cannot apply to non-resource URLs");
      }
      if (!Empty(rule, "apiGroups") || !Empty(rule, "resources")) {
        errs->Invalid(path + "nonResourceURLs", rule["nonResourceURLs"],
                      "rules cannot apply to both regular resources and "
                      "non-resource URLs");
      }
      continue;
    }
    if (Empty(rule, "apiGroups")) {
      errs->Required(path + "apiGroups",
                     "resource rules must supply at least one api group");
    }
    if (Empty(rule, "resources")) {
      errs->Required(path + "resources",
                     "resource rules must supply at least one resource");
    }
  }
}

void ValidateBinding(const json& obj, bool cluster, FieldErrors* errs) {
  const std::string kind = Str(obj, {"roleRef", "kind"});
  std::vector<std::string> kinds = {"Role", "ClusterRole"};
  if (cluster) kinds = {"ClusterRole"};
  bool kind_ok = false;
  for (const std::string& k : kinds) kind_ok = kind_ok || k == kind;
  if (!kind_ok) errs->NotSupported("roleRef.kind", kind, kinds);
  const std::string group = Str(obj, {"roleRef", "apiGroup"});
  if (group != kRbacGroup) {
    errs->NotSupported("roleRef.apiGroup", group, {kRbacGroup});
  }
  if (Str(obj, {"roleRef", "name"}).empty()) errs->Required("roleRef.name");
  const json& subjects = Array(obj, {"subjects"});
  for (size_t i = 0; i < subjects.size(); ++i) {
    const json& s = subjects[i];
    const std::string path = "subjects[" + std::to_string(i) + "].";
    const std::string skind = Str(s, {"kind"});
    if (Str(s, {"name"}).empty()) errs->Required(path + "name");
    if (skind == "ServiceAccount") {
      if (!Str(s, {"apiGroup"}).empty()) {
        errs->NotSupported(path + "apiGroup", Str(s, {"apiGroup"}), {""});
      }
      if (cluster && Str(s, {"namespace"}).empty()) {
        errs->Required(path + "namespace");
      }
    } else if (skind == "User" || skind == "Group") {
      if (Str(s, {"apiGroup"}) != kRbacGroup) {
        errs->NotSupported(path + "apiGroup", Str(s, {"apiGroup"}),
                           {kRbacGroup});
      }
    } else {
      errs->NotSupported(path + "kind", skind,
                         {"ServiceAccount", "User", "Group"});
    }
  }
}

void ValidateRoleRefUnchanged(const json& obj, const json& old,
                              FieldErrors* errs) {
  const json* now = Find(obj, {"roleRef"});
  const json* before = Find(old, {"roleRef"});
  if (now && before && *now != *before) {
    // Go prints the struct.
    InvalidRendered(errs, "roleRef",
                    "rbac.RoleRef{APIGroup:\"" +
                        Str(obj, {"roleRef", "apiGroup"}) + "\", Kind:\"" +
                        Str(obj, {"roleRef", "kind"}) + "\", Name:\"" +
                        Str(obj, {"roleRef", "name"}) + "\"}",
                    "cannot change roleRef");
  }
}

}  // namespace

void ValidateRole(const json& obj, FieldErrors* errs) {
  ValidateRules(obj, /*namespaced=*/true, errs);
}

void ValidateClusterRole(const json& obj, FieldErrors* errs) {
  ValidateRules(obj, /*namespaced=*/false, errs);
}

void ValidateRoleBinding(const json& obj, FieldErrors* errs) {
  ValidateBinding(obj, /*cluster=*/false, errs);
}

void ValidateRoleBindingUpdate(const json& obj, const json& old,
                               FieldErrors* errs) {
  ValidateRoleRefUnchanged(obj, old, errs);
  ValidateRoleBinding(obj, errs);
}

void ValidateClusterRoleBinding(const json& obj, FieldErrors* errs) {
  ValidateBinding(obj, /*cluster=*/true, errs);
}

void ValidateClusterRoleBindingUpdate(const json& obj, const json& old,
                                      FieldErrors* errs) {
  ValidateRoleRefUnchanged(obj, old, errs);
  ValidateClusterRoleBinding(obj, errs);
}

}  // namespace kmock::api::kinds
