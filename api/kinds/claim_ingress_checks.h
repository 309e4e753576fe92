// What kube-apiserver checks of PersistentVolumeClaims and Ingresses that
// users most often get wrong, with its messages: a claim's access modes
// (at least one, each a known mode) and its storage request (present,
// above zero); an Ingress path's pathType (required, one of Exact, Prefix
// and ImplementationSpecific) and, for Exact and Prefix, an absolute path.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_API_KINDS_CLAIM_INGRESS_CHECKS_H_
#define KMOCK_API_KINDS_CLAIM_INGRESS_CHECKS_H_

#include <nlohmann/json.hpp>

#include "api/field_errors.h"

namespace kmock::api::kinds {

// status.phase Pending when the object has none, as the defaulting of
// claims and volumes does (their status is never absent in Go).
void DefaultPendingPhase(nlohmann::json& obj);
void ValidatePersistentVolumeClaim(const nlohmann::json& obj,
                                   FieldErrors* errs);
void ValidateIngress(const nlohmann::json& obj, FieldErrors* errs);

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_CLAIM_INGRESS_CHECKS_H_
