#include "certs/client_cert.h"

#include "certs/cert_builder.h"
#include "certs/openssl_util.h"

namespace kmock::certs {

Result<ClientCert> IssueClientCertificate(
    const Pki& pki, const std::string& common_name,
    const std::vector<std::string>& organizations, const Clock& clock, Rng& rng,
    std::chrono::hours validity) {
  KMOCK_ASSIGN_OR_RETURN(UniqueX509 ca_cert,
                         ParseCertificatePem(pki.ca_cert_pem));
  KMOCK_ASSIGN_OR_RETURN(UniquePkey ca_key, ParsePrivateKeyPem(pki.ca_key_pem));
  CertSpec spec;
  spec.role = CertRole::kClient;
  spec.common_name = common_name;
  spec.organizations = organizations;
  spec.not_before = clock.Now() - kBackdate;
  spec.not_after = clock.Now() + validity;
  KMOCK_ASSIGN_OR_RETURN(UniquePkey key, GenerateEcKey());
  KMOCK_ASSIGN_OR_RETURN(
      UniqueX509 cert,
      IssueCertificate(spec, key.get(), ca_cert.get(), ca_key.get(), rng));
  return ClientCert{CertificateToPem(cert.get()), PrivateKeyToPem(key.get())};
}

}  // namespace kmock::certs
