// kube-controller-manager's csrsigning controller: once a
// CertificateSigningRequest for one of the built-in signers (signers.h) is
// Approved (and not Failed) and has no certificate yet, it issues one from
// the cluster CA and writes it to status.certificate: the request's
// subject and key, the usages asked for, valid from five minutes ago for
// spec.expirationSeconds (at least ten minutes) or the cluster signing
// duration (a year), never past the CA. A request the signer refuses gets
// a Failed condition (reason SignerValidationFailure) saying why.
//
// Thread safety: Start/Stop from one thread (Stop is idempotent and runs on
// destruction); Sync from any thread.
#ifndef KMOCK_CONTROLLERS_CERTIFICATES_CSR_SIGNING_CONTROLLER_H_
#define KMOCK_CONTROLLERS_CERTIFICATES_CSR_SIGNING_CONTROLLER_H_

#include <chrono>
#include <memory>
#include <string>

#include "certs/openssl_util.h"
#include "common/clock.h"
#include "common/rng.h"
#include "controllers/control_loop.h"
#include "controllers/informer.h"
#include "controllers/work_queue.h"
#include "registry/registry.h"

namespace kmock::controllers {

struct CsrSigningOptions {
  std::string ca_cert_pem;
  std::string ca_key_pem;
  // kube-controller-manager's --cluster-signing-duration.
  std::chrono::hours signing_duration{24 * 365};
};

class CsrSigningController {
 public:
  // Fails when the CA's certificate or key does not parse.
  static Result<std::unique_ptr<CsrSigningController>> Create(
      registry::Registry* registry, const Clock* clock, Rng* rng,
      const api::ResourceInfo* csrs, CsrSigningOptions options);
  ~CsrSigningController();
  CsrSigningController(const CsrSigningController&) = delete;
  CsrSigningController& operator=(const CsrSigningController&) = delete;

  void Start();
  void Stop();

  // Signs (or fails) one request by name if it is due.
  Status Sync(const std::string& name);

 private:
  CsrSigningController(registry::Registry* registry, const Clock* clock,
                       Rng* rng, const api::ResourceInfo* csrs,
                       CsrSigningOptions options, certs::UniqueX509 ca,
                       certs::UniquePkey ca_key);
  Status WriteStatus(nlohmann::json csr);

  registry::Registry* registry_;
  const Clock* clock_;
  Rng* rng_;
  const api::ResourceInfo* csrs_;
  CsrSigningOptions options_;
  certs::UniqueX509 ca_;
  certs::UniquePkey ca_key_;
  WorkQueue queue_;
  std::unique_ptr<Informer> informer_;
  ControlLoop loop_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_CERTIFICATES_CSR_SIGNING_CONTROLLER_H_
