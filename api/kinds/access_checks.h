// What kube-apiserver checks of RBAC objects, with its messages: every
// rule names verbs, and resource rules api groups and resources (a Role's
// rules may not name non-resource URLs); a binding's roleRef names a Role
// or ClusterRole (a ClusterRoleBinding only a ClusterRole) of
// rbac.authorization.k8s.io by name and may not change; its subjects are
// ServiceAccounts, Users or Groups with names (a ServiceAccount also with a
// namespace, in a ClusterRoleBinding).
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_API_KINDS_ACCESS_CHECKS_H_
#define KMOCK_API_KINDS_ACCESS_CHECKS_H_

#include <nlohmann/json.hpp>

#include "api/field_errors.h"

namespace kmock::api::kinds {

void ValidateRole(const nlohmann::json& obj, FieldErrors* errs);
void ValidateClusterRole(const nlohmann::json& obj, FieldErrors* errs);
void ValidateRoleBinding(const nlohmann::json& obj, FieldErrors* errs);
void ValidateRoleBindingUpdate(const nlohmann::json& obj,
                               const nlohmann::json& old, FieldErrors* errs);
void ValidateClusterRoleBinding(const nlohmann::json& obj, FieldErrors* errs);
void ValidateClusterRoleBindingUpdate(const nlohmann::json& obj,
                                      const nlohmann::json& old,
                                      FieldErrors* errs);

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_ACCESS_CHECKS_H_
