// Reading certificates back: subject fields, SANs, validity, and chain
// verification against a CA (what `openssl verify` does, with the time
// taken from an injected Clock).
//
// Thread safety: free functions over caller-owned objects; safe to call
// from many threads on distinct objects.
#ifndef KMOCK_CERTS_CERT_INSPECT_H_
#define KMOCK_CERTS_CERT_INSPECT_H_

#include <openssl/x509.h>

#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"

namespace kmock::certs {

// The subject's first CN, or "" when there is none.
std::string SubjectCommonName(X509* cert);
// Every subject O value, in order.
std::vector<std::string> SubjectOrganizations(X509* cert);
// The subject alternative names in the form CanonicalSans produces
// ("DNS:localhost", "IP:::1"), sorted.
std::vector<std::string> SubjectAltNames(X509* cert);

// True when the certificate is no longer valid at `t` (notAfter <= t).
bool ExpiredAt(X509* cert, TimePoint t);

enum class CertPurpose { kAny, kServerAuth, kClientAuth };

// Verifies that `cert` chains to a certificate in `trust` and is valid at
// clock.Now() for `purpose`. Returns kUnauthorized with OpenSSL's reason
// ("certificate has expired", "unable to get local issuer certificate").
Status VerifyCertificate(X509_STORE* trust, X509* cert, CertPurpose purpose,
                         const Clock& clock);
// The same with the CA given as PEM.
Status VerifyCertificatePem(const std::string& ca_pem,
                            const std::string& cert_pem, CertPurpose purpose,
                            const Clock& clock);

}  // namespace kmock::certs

#endif  // KMOCK_CERTS_CERT_INSPECT_H_
