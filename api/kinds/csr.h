// CertificateSigningRequests as kube-apiserver keeps them: the request is
// a signed PKCS#10 PEM with known key usages and a signer name of the form
// example.com/name; who asked is recorded from the requesting user on
// create; the spec never changes afterwards. Approved and Denied
// conditions are set only through /approval, the certificate (and Failed)
// only through /status; no condition of those types can be removed, and
// Approved and Denied exclude each other.
//
// Thread safety: pure functions and stateless strategies; safe from any
// thread.
#ifndef KMOCK_API_KINDS_CSR_H_
#define KMOCK_API_KINDS_CSR_H_

#include <nlohmann/json.hpp>

#include "api/field_errors.h"
#include "api/resource.h"

namespace kmock::api::kinds {

void ValidateCertificateSigningRequest(const nlohmann::json& obj,
                                       FieldErrors* errs);
void ValidateCertificateSigningRequestUpdate(const nlohmann::json& obj,
                                             const nlohmann::json& old,
                                             FieldErrors* errs);
// The stored spec (and status, as for every kind with /status) stays.
void KeepCertificateSigningRequestSpec(nlohmann::json& obj,
                                       const nlohmann::json& old);
// As kube-apiserver on every update: a condition without lastUpdateTime
// gets `now`; one without lastTransitionTime gets the old transition time
// of a condition of the same type and status, else `now`.
void StampCertificateSigningRequestConditions(nlohmann::json& obj,
                                              const nlohmann::json& old,
                                              TimePoint now);
// spec.username, uid, groups and extra from the user who creates it.
void RecordCertificateSigningRequester(nlohmann::json& obj,
                                       const UserInfo& user);

const Strategy* CertificateSigningRequestStatusStrategy();
const Strategy* CertificateSigningRequestApprovalStrategy();

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_CSR_H_
