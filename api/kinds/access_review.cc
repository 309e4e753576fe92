#include "api/kinds/access_review.h"

#include <algorithm>

#include "api/field_errors.h"
#include "api/kinds/util.h"

namespace kmock::api::kinds {

namespace {

bool InGroup(const UserInfo& user, std::string_view group) {
  return std::find(user.groups.begin(), user.groups.end(), group) !=
         user.groups.end();
}

// What every authenticated user may do: create the self reviews and read
// the discovery and health paths. A real cluster grants these through the
// bootstrap ClusterRoles system:basic-user, system:discovery and
// system:public-info-viewer, which is why /healthz and friends appear twice.
void AddAuthenticatedUserRules(RuleSet* rules) {
  rules->resource_rules.push_back(
      {{"create"}, {"authentication.k8s.io"}, {"selfsubjectreviews"}, {}});
  rules->resource_rules.push_back(
      {{"create"},
       {"authorization.k8s.io"},
       {"selfsubjectaccessreviews", "selfsubjectrulesreviews"},
       {}});
  rules->non_resource_rules.push_back(
      {{"get"},
       {"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi",
        "/openapi/*", "/readyz", "/version", "/version/"}});
  rules->non_resource_rules.push_back(
      {{"get"}, {"/healthz", "/livez", "/readyz", "/version", "/version/"}});
}

// Go's encoding/json omits these lists when empty (omitempty).
void PutList(json& obj, const char* key, const std::vector<std::string>& v) {
  if (!v.empty()) obj[key] = v;
}

json RuleJson(const ResourceRule& r) {
  json out = {{"verbs", r.verbs}};
  PutList(out, "apiGroups", r.api_groups);
  PutList(out, "resources", r.resources);
  PutList(out, "resourceNames", r.resource_names);
  return out;
}

json RuleJson(const NonResourceRule& r) {
  json out = {{"verbs", r.verbs}};
  PutList(out, "nonResourceURLs", r.non_resource_urls);
  return out;
}

// The request as the answer starts from: a real server echoes the decoded
// object, whose zero creationTimestamp Go writes as null.
json Echo(const json& request) {
  json out = request.is_object() ? request : json::object();
  json& meta = ObjectAt(out, "metadata");
  if (!meta.contains("creationTimestamp")) meta["creationTimestamp"] = nullptr;
  return out;
}

bool IsSet(const json* v) { return v != nullptr && !v->is_null(); }

}  // namespace

AccessDecision Authorize(const UserInfo& user,
                         const AccessAttributes& /*attrs*/) {
  AccessDecision d;
  // The superuser group needs no rules, and a real server gives no reason.
  if (InGroup(user, kSystemMasters)) {
    d.allowed = true;
    return d;
  }
  // No authorization yet: everyone else may do everything too.
  d.allowed = true;
  return d;
}

RuleSet RulesFor(const UserInfo& /*user*/, const std::string& /*ns*/) {
  RuleSet rules;
  // system:masters holds cluster-admin; until there is an authorizer,
  // everyone does, to match Authorize.
  rules.resource_rules.push_back({{"*"}, {"*"}, {"*"}, {}});
  rules.non_resource_rules.push_back({{"*"}, {"*"}});
  AddAuthenticatedUserRules(&rules);
  return rules;
}

namespace {

// The spec checks every access review shares.
void CheckAttributeSets(const json* res, const json* non, FieldErrors& errs) {
  if (IsSet(res) && IsSet(non)) {
    errs.Invalid("spec.nonResourceAttributes", *non,
                 "cannot be specified in combination with resourceAttributes");
  } else if (!IsSet(res) && !IsSet(non)) {
    // Go's field errors print a nil pointer as the string "null".
    errs.Invalid(
        "spec.resourceAttributes", "null",
        "exactly one of nonResourceAttributes or resourceAttributes must be "
        "specified");
  }
}

AccessAttributes AttributesOf(const json* res, const json* non) {
  AccessAttributes a;
  if (IsSet(res)) {
    a.resource_request = true;
    a.ns = Str(*res, {"namespace"});
    a.verb = Str(*res, {"verb"});
    a.group = Str(*res, {"group"});
    a.version = Str(*res, {"version"});
    a.resource = Str(*res, {"resource"});
    a.subresource = Str(*res, {"subresource"});
    a.name = Str(*res, {"name"});
  } else {
    a.resource_request = false;
    a.path = Str(*non, {"path"});
    a.verb = Str(*non, {"verb"});
  }
  return a;
}

json ReviewStatus(const AccessDecision& d) {
  json status = {{"allowed", d.allowed}};
  if (d.denied) status["denied"] = true;
  if (!d.reason.empty()) status["reason"] = d.reason;
  if (!d.evaluation_error.empty()) {
    status["evaluationError"] = d.evaluation_error;
  }
  return status;
}

// A SubjectAccessReview's or LocalSubjectAccessReview's answer: the spec's
// user asked about, not the caller.
Result<json> ReviewOfOther(const json& request, const char* kind,
                           const char* plural, bool local) {
  const json* res = Find(request, {"spec", "resourceAttributes"});
  const json* non = Find(request, {"spec", "nonResourceAttributes"});
  FieldErrors errs;
  CheckAttributeSets(res, non, errs);
  UserInfo subject;
  subject.name = Str(request, {"spec", "user"});
  subject.uid = Str(request, {"spec", "uid"});
  if (const json* groups = Find(request, {"spec", "groups"});
      groups != nullptr && groups->is_array()) {
    for (const json& g : *groups) {
      if (g.is_string()) subject.groups.push_back(g.get<std::string>());
    }
  }
  if (subject.name.empty() && subject.groups.empty()) {
    errs.Invalid("spec.user", "",
                 "at least one of user or group must be specified");
  }
  if (local) {
    const std::string ns = Str(request, {"metadata", "namespace"});
    if (IsSet(res) && Str(*res, {"namespace"}) != ns) {
      errs.Invalid("spec.resourceAttributes.namespace",
                   Str(*res, {"namespace"}), "must match metadata.namespace");
    }
    if (IsSet(non)) {
      errs.Invalid("spec.nonResourceAttributes", "<object>",
                   "disallowed on this kind of request");
    }
  }
  if (!errs.empty()) {
    return errs.ToStatus(kind, "authorization.k8s.io", plural, "");
  }
  json out = Echo(request);
  out["status"] = ReviewStatus(Authorize(subject, AttributesOf(res, non)));
  return out;
}

}  // namespace

Result<AccessAttributes> AttributesFromReview(const json& review) {
  const json* res = Find(review, {"spec", "resourceAttributes"});
  const json* non = Find(review, {"spec", "nonResourceAttributes"});
  FieldErrors errs;
  CheckAttributeSets(res, non, errs);
  if (!errs.empty()) {
    return errs.ToStatus("SelfSubjectAccessReview", "authorization.k8s.io",
                         "selfsubjectaccessreviews", "");
  }
  return AttributesOf(res, non);
}

Result<json> CreateSubjectAccessReview(const json& request,
                                       const UserInfo& /*user*/) {
  return ReviewOfOther(request, "SubjectAccessReview", "subjectaccessreviews",
                       false);
}

Result<json> CreateLocalSubjectAccessReview(const json& request,
                                            const UserInfo& /*user*/) {
  return ReviewOfOther(request, "LocalSubjectAccessReview",
                       "localsubjectaccessreviews", true);
}

Result<json> CreateSelfSubjectAccessReview(const json& request,
                                           const UserInfo& user) {
  KMOCK_ASSIGN_OR_RETURN(AccessAttributes attrs, AttributesFromReview(request));
  json out = Echo(request);
  out["status"] = ReviewStatus(Authorize(user, attrs));
  return out;
}

Result<json> CreateSelfSubjectRulesReview(const json& request,
                                          const UserInfo& user) {
  std::string ns = Str(request, {"spec", "namespace"});
  if (ns.empty()) return BadRequestError("no namespace on request");
  RuleSet rules = RulesFor(user, ns);
  json resource_rules = json::array();
  for (const ResourceRule& r : rules.resource_rules) {
    resource_rules.push_back(RuleJson(r));
  }
  json non_resource_rules = json::array();
  for (const NonResourceRule& r : rules.non_resource_rules) {
    non_resource_rules.push_back(RuleJson(r));
  }
  json status = {{"resourceRules", std::move(resource_rules)},
                 {"nonResourceRules", std::move(non_resource_rules)},
                 {"incomplete", rules.incomplete}};
  if (!rules.evaluation_error.empty()) {
    status["evaluationError"] = rules.evaluation_error;
  }
  json out = Echo(request);
  out["status"] = std::move(status);
  return out;
}

Result<json> CreateSelfSubjectReview(const json& request,
                                     const UserInfo& user) {
  json info = {{"username", user.name}};
  if (!user.uid.empty()) info["uid"] = user.uid;
  if (!user.groups.empty()) info["groups"] = user.groups;
  json out = Echo(request);
  out["status"] = {{"userInfo", std::move(info)}};
  return out;
}

}  // namespace kmock::api::kinds
