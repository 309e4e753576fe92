// Client certificates for users other than the admin (tests, RBAC users):
// CN is the user name and each O a group, as kube-apiserver reads them.
//
// Thread safety: safe to call from many threads with the same Pki.
#ifndef KMOCK_CERTS_CLIENT_CERT_H_
#define KMOCK_CERTS_CLIENT_CERT_H_

#include <chrono>
#include <string>
#include <vector>

#include "certs/pki.h"
#include "common/clock.h"
#include "common/rng.h"
#include "common/status.h"

namespace kmock::certs {

struct ClientCert {
  std::string cert_pem;
  std::string key_pem;  // PKCS#8, unencrypted
};

// Issues a certificate signed by the PKI's CA, valid from clock.Now() minus
// kBackdate for `validity`, with extendedKeyUsage clientAuth.
Result<ClientCert> IssueClientCertificate(
    const Pki& pki, const std::string& common_name,
    const std::vector<std::string>& organizations, const Clock& clock, Rng& rng,
    std::chrono::hours validity = kLeafValidity);

}  // namespace kmock::certs

#endif  // KMOCK_CERTS_CLIENT_CERT_H_
