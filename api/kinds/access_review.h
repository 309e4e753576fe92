// The review kinds, computed on create and never stored:
// authorization.k8s.io/v1 SelfSubjectAccessReview ("may I do this?"),
// SubjectAccessReview and LocalSubjectAccessReview ("may they do this?")
// and SelfSubjectRulesReview ("what may I do here?"), and
// authentication.k8s.io SelfSubjectReview ("who am I?").
//
// Every authorization decision goes through Authorize and RulesFor, so a
// real authorizer (RBAC) can replace them in one place. Until then members
// of system:masters may do everything, and so may everyone else, because
// kubemock does not authorize requests yet.
//
// Thread safety: pure functions and a stateless strategy; safe from any
// thread.
#ifndef KMOCK_API_KINDS_ACCESS_REVIEW_H_
#define KMOCK_API_KINDS_ACCESS_REVIEW_H_

#include <string>
#include <vector>

#include "api/resource.h"
#include "common/status.h"

namespace kmock::api::kinds {

// The group whose members may do everything.
inline constexpr char kSystemMasters[] = "system:masters";

// One request as an authorizer sees it: either an action on an API resource
// or an action on a plain URL path. "*" in a field stands for any value.
struct AccessAttributes {
  bool resource_request = true;
  std::string verb;  // "get", "list", ...; for paths the lower-case method
  // Resource requests.
  std::string ns;  // "" = every namespace, or none for cluster-wide kinds
  std::string group, version, resource, subresource, name;
  // Non-resource requests.
  std::string path;
};

// What the authorizer said, as SubjectAccessReviewStatus carries it.
struct AccessDecision {
  bool allowed = false;
  bool denied = false;  // an explicit deny; never set with allowed
  std::string reason;   // for people; "" when there is nothing to say
  std::string evaluation_error;
};

AccessDecision Authorize(const UserInfo& user, const AccessAttributes& attrs);

// authorization/v1 ResourceRule and NonResourceRule.
struct ResourceRule {
  std::vector<std::string> verbs, api_groups, resources, resource_names;
};
struct NonResourceRule {
  std::vector<std::string> verbs, non_resource_urls;
};

// Every action `user` may take in namespace `ns`, as SubjectRulesReviewStatus
// carries it, including the rules every authenticated user has (the self
// reviews and the discovery and health paths).
struct RuleSet {
  std::vector<ResourceRule> resource_rules;
  std::vector<NonResourceRule> non_resource_rules;
  bool incomplete = false;
  std::string evaluation_error;
};
RuleSet RulesFor(const UserInfo& user, const std::string& ns);

// The access attributes of a SelfSubjectAccessReview's spec; a 422 when the
// spec names neither or both kinds of attributes.
Result<AccessAttributes> AttributesFromReview(const json& review);

// ResourceInfo::virtual_create of each kind: the request with its status
// filled in (and metadata.creationTimestamp null, as a real server answers).
Result<json> CreateSelfSubjectAccessReview(const json& request,
                                           const UserInfo& user);
// SubjectAccessReview and LocalSubjectAccessReview: the same question about
// the spec's user and groups (the caller is not asked about); a local
// review's resource namespace must be its own.
Result<json> CreateSubjectAccessReview(const json& request,
                                       const UserInfo& user);
Result<json> CreateLocalSubjectAccessReview(const json& request,
                                            const UserInfo& user);
Result<json> CreateSelfSubjectRulesReview(const json& request,
                                          const UserInfo& user);
Result<json> CreateSelfSubjectReview(const json& request, const UserInfo& user);

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_ACCESS_REVIEW_H_
