#include "controllers/certificates/csr_signing_controller.h"

#include <algorithm>

#include "certs/certificate_request.h"
#include "common/go_base64.h"
#include "common/json_view.h"
#include "controllers/certificates/signers.h"
#include "controllers/controller_write.h"

namespace kmock::controllers {

using nlohmann::json;

namespace {

bool HasTrueCondition(const json& csr, const std::string& type) {
  const json& conds = ArrayAt(ObjectAt(csr, "status"), "conditions");
  return std::any_of(conds.begin(), conds.end(), [&](const json& c) {
    return c.is_object() && c.value("type", "") == type &&
           c.value("status", "") == "True";
  });
}

std::vector<std::string> Usages(const json& spec) {
  std::vector<std::string> out;
  for (const json& u : ArrayAt(spec, "usages")) {
    if (u.is_string()) out.push_back(u.get<std::string>());
  }
  return out;
}

// What upstream's signer does with spec.expirationSeconds: at most the
// signing duration, at least ten minutes (twice the backdating).
std::chrono::seconds Validity(const json& spec, std::chrono::hours limit) {
  const json& asked = ValueAt(spec, "expirationSeconds");
  if (!asked.is_number_integer()) return limit;
  std::chrono::seconds want(asked.get<int64_t>());
  return std::clamp<std::chrono::seconds>(want, std::chrono::minutes(10),
                                          limit);
}

}  // namespace

Result<std::unique_ptr<CsrSigningController>> CsrSigningController::Create(
    registry::Registry* registry, const Clock* clock, Rng* rng,
    const api::ResourceInfo* csrs, CsrSigningOptions options) {
  KMOCK_ASSIGN_OR_RETURN(certs::UniqueX509 ca,
                         certs::ParseCertificatePem(options.ca_cert_pem));
  KMOCK_ASSIGN_OR_RETURN(certs::UniquePkey key,
                         certs::ParsePrivateKeyPem(options.ca_key_pem));
  return std::unique_ptr<CsrSigningController>(
      new CsrSigningController(registry, clock, rng, csrs, std::move(options),
                               std::move(ca), std::move(key)));
}

CsrSigningController::CsrSigningController(registry::Registry* registry,
                                           const Clock* clock, Rng* rng,
                                           const api::ResourceInfo* csrs,
                                           CsrSigningOptions options,
                                           certs::UniqueX509 ca,
                                           certs::UniquePkey ca_key)
    : registry_(registry),
      clock_(clock),
      rng_(rng),
      csrs_(csrs),
      options_(std::move(options)),
      ca_(std::move(ca)),
      ca_key_(std::move(ca_key)),
      queue_(clock),
      loop_("csrsigning", &queue_, 1,
            [this](const std::string& name) { return Sync(name); }) {
  informer_ = std::make_unique<Informer>(registry_, csrs_);
  auto queue = [this](const json& csr) {
    queue_.Add(ObjectAt(csr, "metadata").value("name", ""));
  };
  informer_->AddHandlers(
      {queue, [queue](const json&, const json& csr) { queue(csr); }, nullptr});
}

CsrSigningController::~CsrSigningController() { Stop(); }

void CsrSigningController::Start() { loop_.Start({informer_.get()}); }

void CsrSigningController::Stop() { loop_.Stop(); }

Status CsrSigningController::Sync(const std::string& name) {
  KMOCK_RETURN_IF_ERROR(WaitForInformers({informer_.get()}));
  ObjectPtr cached = informer_->Get(name);
  if (cached == nullptr) return Status::Ok();
  const json& csr = *cached;
  if (!HasTrueCondition(csr, "Approved") || HasTrueCondition(csr, "Failed"))
    return Status::Ok();
  if (ObjectAt(csr, "status").contains("certificate")) return Status::Ok();
  const json& spec = ObjectAt(csr, "spec");
  const std::string signer = spec.value("signerName", "");
  size_t bad_at = 0;
  std::optional<std::string> pem =
      GoBase64Decode(spec.value("request", ""), &bad_at);
  auto request = certs::ParseCertificateRequest(pem.value_or(""));
  // kube-apiserver checked the request when it was stored.
  if (!request.ok()) return Status::Ok();
  const std::vector<std::string> usages = Usages(spec);
  certificates::SignerVerdict verdict =
      certificates::CheckForSigner(signer, *request, usages);
  if (!verdict.ours) return Status::Ok();
  json updated = csr;
  if (!verdict.refusal.empty()) {
    updated["status"]["conditions"].push_back(
        {{"type", "Failed"},
         {"status", "True"},
         {"reason", "SignerValidationFailure"},
         {"message", verdict.refusal},
         {"lastUpdateTime", FormatRfc3339(clock_->Now())}});
    return WriteStatus(std::move(updated));
  }
  const TimePoint now = clock_->Now();
  auto cert = certs::SignCertificateRequest(
      *request, usages, now - std::chrono::minutes(5),
      now + Validity(spec, options_.signing_duration), ca_.get(), ca_key_.get(),
      *rng_);
  if (!cert.ok()) return cert.status();
  updated["status"]["certificate"] = GoBase64Encode(*cert);
  return WriteStatus(std::move(updated));
}

Status CsrSigningController::WriteStatus(json csr) {
  const std::string name = ObjectAt(csr, "metadata").value("name", "");
  auto written = registry_->Update(*csrs_, "", name, "status", std::move(csr),
                                   ControllerWrite("certificate-controller"));
  return written.ok() ? Status::Ok()
                      : IgnoreRoutineWriteErrors(written.status());
}

}  // namespace kmock::controllers
