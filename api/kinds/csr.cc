#include "api/kinds/csr.h"

#include <cstdio>
#include <set>

#include "api/validation.h"
#include "certs/certificate_request.h"
#include "common/go_base64.h"
#include "common/json_view.h"

namespace kmock::api::kinds {

namespace {

using nlohmann::json;

constexpr char kLegacyUnknownSigner[] = "kubernetes.io/legacy-unknown";

// The bytes of a `format: byte` field (base64 in JSON); the decode check
// has refused anything else before validation runs.
std::string BytesAt(const json& obj, const char* key) {
  size_t bad_at = 0;
  return GoBase64Decode(StringAt(obj, key), &bad_at).value_or("");
}

// How Go's %#v prints a []byte, which field errors of byte fields show.
std::string GoByteSlice(const std::string& bytes) {
  std::string out = "[]byte{";
  char buf[8];
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s0x%x", i == 0 ? "" : ", ",
                  static_cast<unsigned char>(bytes[i]));
    out += buf;
  }
  return out + "}";
}

const json& Conditions(const json& obj) {
  return ValueAt(ValueAt(obj, "status"), "conditions");
}

std::vector<json> ConditionsOfType(const json& obj, const std::string& type) {
  std::vector<json> out;
  const json& conds = Conditions(obj);
  if (!conds.is_array()) return out;
  for (const json& c : conds) {
    if (StringAt(c, "type") == type) out.push_back(c);
  }
  return out;
}

void ValidateSignerName(const std::string& name, FieldErrors* errs) {
  const std::string path = "spec.signerName";
  if (name.empty()) return errs->Required(path);
  if (name == kLegacyUnknownSigner) {
    return errs->Invalid(path, name,
                         "the legacy signerName is not allowed via this API "
                         "version");
  }
  const size_t slash = name.find('/');
  if (slash == std::string::npos || name.find('/', slash + 1) != name.npos) {
    return errs->Invalid(path, name,
                         "must be a fully qualified domain and path of the "
                         "form 'example.com/signer-name'");
  }
  const std::string domain = name.substr(0, slash);
  const std::string rest = name.substr(slash + 1);
  if (domain.size() > 253) errs->TooLong(path, domain, 253);
  size_t labels = 0;
  for (size_t start = 0;; ++labels) {
    const size_t dot = domain.find('.', start);
    const std::string label = domain.substr(start, dot - start);
    std::vector<std::string> problems = IsDNS1123Label(label);
    if (!problems.empty()) {
      for (const auto& p : problems)
        errs->Invalid(path, domain, "validating label \"" + label + "\": " + p);
      labels = 2;  // one complaint about the domain is enough
      break;
    }
    if (dot == std::string::npos) {
      ++labels;
      break;
    }
    start = dot + 1;
  }
  if (labels < 2) {
    errs->Invalid(path, domain,
                  "should be a domain with at least two segments separated "
                  "by dots");
  }
  for (size_t start = 0;;) {
    const size_t dot = rest.find('.', start);
    const std::string label = rest.substr(start, dot - start);
    std::vector<std::string> problems = IsDNS1123Subdomain(label);
    if (!problems.empty()) {
      for (const auto& p : problems)
        errs->Invalid(path, rest, "validating label \"" + label + "\": " + p);
      break;
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (name.size() > 253 + 253 + 63 + 2) errs->TooLong(path, name, 571);
}

std::string CertificateProblem(const std::string& pem) {
  if (pem.empty()) return "";
  size_t blocks = 0;
  size_t at = 0;
  while (true) {
    const size_t begin = pem.find("-----BEGIN ", at);
    if (begin == std::string::npos) break;
    const size_t type_end = pem.find("-----", begin + 11);
    if (type_end == std::string::npos) break;
    const std::string type = pem.substr(begin + 11, type_end - begin - 11);
    const std::string footer = "-----END " + type + "-----";
    const size_t end = pem.find(footer, type_end);
    if (end == std::string::npos) break;
    if (type != "CERTIFICATE") {
      return "only CERTIFICATE PEM blocks are allowed, found \"" + type + "\"";
    }
    if (!certs::ParseCertificatePem(
             pem.substr(begin, end + footer.size() - begin))
             .ok()) {
      return "x509: malformed certificate";
    }
    ++blocks;
    at = end + footer.size();
  }
  if (blocks == 0) return "must contain at least one CERTIFICATE PEM block";
  return "";
}

struct Allowed {
  bool approval_conditions = false;  // through /approval
  bool certificate = false;          // through /status
};

void ValidateConditions(const json& obj, FieldErrors* errs) {
  const json& conds = Conditions(obj);
  if (!conds.is_array()) return;
  static const std::set<std::string> kTrueOnly = {"Approved", "Denied",
                                                  "Failed"};
  std::set<std::string> seen;
  bool approved = false, denied = false;
  for (size_t i = 0; i < conds.size(); ++i) {
    const std::string at = "status.conditions[" + std::to_string(i) + "]";
    const std::string type = StringAt(conds[i], "type");
    const std::string status = StringAt(conds[i], "status");
    if (type.empty()) errs->Required(at + ".type");
    if (status.empty()) {
      errs->Required(at + ".status");
    } else if (kTrueOnly.count(type) > 0
                   ? status != "True"
                   : status != "True" && status != "False" &&
                         status != "Unknown") {
      errs->NotSupported(
          at + ".status", status,
          kTrueOnly.count(type) > 0
              ? std::vector<std::string>{"True"}
              : std::vector<std::string>{"False", "True", "Unknown"});
    }
    if (type == "Approved") {
      approved = true;
      if (denied) {
        errs->Invalid(at + ".type", type,
                      "Approved and Denied conditions are mutually exclusive");
      }
    } else if (type == "Denied") {
      denied = true;
      if (approved) {
        errs->Invalid(at + ".type", type,
                      "Approved and Denied conditions are mutually exclusive");
      }
    }
    if (!seen.insert(type).second) errs->Duplicate(at + ".type", type);
  }
}

void ValidateUpdateAllowing(const json& obj, const json& old, Allowed allowed,
                            FieldErrors* errs) {
  ValidateCertificateSigningRequest(obj, errs);
  for (const char* type : {"Approved", "Denied", "Failed"}) {
    if (ConditionsOfType(obj, type).size() <
        ConditionsOfType(old, type).size()) {
      errs->Forbidden("status.conditions",
                      std::string("updates may not remove a condition of "
                                  "type \"") +
                          type + "\"");
    }
  }
  if (!allowed.approval_conditions) {
    for (const char* type : {"Approved", "Denied"}) {
      const auto now = ConditionsOfType(obj, type);
      const auto before = ConditionsOfType(old, type);
      if (now.size() > before.size()) {
        errs->Forbidden("status.conditions",
                        std::string("updates may not add a condition of "
                                    "type \"") +
                            type + "\"");
      } else if (now.size() == before.size() && now != before) {
        errs->Forbidden("status.conditions",
                        std::string("updates may not modify a condition of "
                                    "type \"") +
                            type + "\"");
      }
    }
  }
  const std::string cert = StringAt(ValueAt(obj, "status"), "certificate");
  const std::string old_cert = StringAt(ValueAt(old, "status"), "certificate");
  if (cert != old_cert) {
    if (!allowed.certificate) {
      errs->Forbidden("status.certificate",
                      "updates may not set certificate content");
    } else if (!old_cert.empty()) {
      errs->Forbidden("status.certificate",
                      "updates may not modify existing certificate content");
    }
  }
}

// The conditions of `from` whose type is (or, with keep_listed false, is
// not) one of `types`, then the others from `rest`.
json MergeConditions(const json& from, const json& rest,
                     const std::set<std::string>& types) {
  json out = json::array();
  const json& a = Conditions(from);
  const json& b = Conditions(rest);
  if (a.is_array()) {
    for (const json& c : a) {
      if (types.count(StringAt(c, "type")) > 0) out.push_back(c);
    }
  }
  if (b.is_array()) {
    for (const json& c : b) {
      if (types.count(StringAt(c, "type")) == 0) out.push_back(c);
    }
  }
  return out;
}

void SetConditions(json& obj, json conds) {
  if (conds.empty()) {
    if (obj.contains("status") && obj["status"].is_object())
      obj["status"].erase("conditions");
    return;
  }
  obj["status"]["conditions"] = std::move(conds);
}

const std::set<std::string>& ApprovalTypes() {
  static const auto* types = new std::set<std::string>{"Approved", "Denied"};
  return *types;
}

// /status: the writer's status, except that Approved and Denied stay as
// stored.
class CsrStatusStrategy : public StatusStrategy {
 public:
  CsrStatusStrategy() : StatusStrategy(nullptr) {}
  void PrepareForUpdate(json& obj, const json& old) const override {
    StatusStrategy::PrepareForUpdate(obj, old);
    SetConditions(obj, MergeConditions(old, obj, ApprovalTypes()));
  }
  void ValidateUpdate(const json& obj, const json& old,
                      FieldErrors* errs) const override {
    ValidateUpdateAllowing(obj, old, Allowed{false, true}, errs);
  }
};

// /approval: only the Approved and Denied conditions are the writer's.
class CsrApprovalStrategy : public StatusStrategy {
 public:
  CsrApprovalStrategy() : StatusStrategy(nullptr) {}
  void PrepareForUpdate(json& obj, const json& old) const override {
    StatusStrategy::PrepareForUpdate(obj, old);
    json merged = MergeConditions(obj, old, ApprovalTypes());
    const json& old_status = ValueAt(old, "status");
    if (old_status.is_object()) {
      obj["status"] = old_status;
    } else {
      obj.erase("status");
    }
    SetConditions(obj, std::move(merged));
  }
  void ValidateUpdate(const json& obj, const json& old,
                      FieldErrors* errs) const override {
    ValidateUpdateAllowing(obj, old, Allowed{true, false}, errs);
  }
};

}  // namespace

void ValidateCertificateSigningRequest(const json& obj, FieldErrors* errs) {
  const json& spec = ValueAt(obj, "spec");
  const std::string request = BytesAt(spec, "request");
  auto parsed = certs::ParseCertificateRequest(request);
  if (!parsed.ok()) {
    errs->Add(StatusCause{"FieldValueInvalid",
                          "Invalid value: " + GoByteSlice(request) + ": " +
                              parsed.status().message(),
                          "spec.request"});
  }
  const json& usages = ValueAt(spec, "usages");
  if (!usages.is_array() || usages.empty()) {
    errs->Required("spec.usages");
  } else {
    std::set<std::string> seen;
    for (size_t i = 0; i < usages.size(); ++i) {
      const std::string at = "spec.usages[" + std::to_string(i) + "]";
      const std::string usage =
          usages[i].is_string() ? usages[i].get<std::string>() : "";
      if (!certs::IsKnownKeyUsage(usage))
        errs->NotSupported(at, usage, certs::KnownKeyUsages());
      if (!seen.insert(usage).second) errs->Duplicate(at, usage);
    }
  }
  ValidateSignerName(StringAt(spec, "signerName"), errs);
  const json& expiration = ValueAt(spec, "expirationSeconds");
  if (expiration.is_number_integer() && expiration.get<int64_t>() < 600) {
    errs->Invalid("spec.expirationSeconds", expiration,
                  "may not specify a duration less than 600 seconds (10 "
                  "minutes)");
  }
  ValidateConditions(obj, errs);
  const std::string problem =
      CertificateProblem(BytesAt(ValueAt(obj, "status"), "certificate"));
  if (!problem.empty())
    errs->Invalid("status.certificate", "<certificate data>", problem);
}

void ValidateCertificateSigningRequestUpdate(const json& obj, const json& old,
                                             FieldErrors* errs) {
  ValidateUpdateAllowing(obj, old, Allowed{}, errs);
}

void KeepCertificateSigningRequestSpec(json& obj, const json& old) {
  const json& spec = ValueAt(old, "spec");
  if (spec.is_null()) return;
  obj["spec"] = spec;
}

void StampCertificateSigningRequestConditions(json& obj, const json& old,
                                              TimePoint now) {
  auto status = obj.find("status");
  if (status == obj.end() || !status->is_object()) return;
  auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return;
  const json& old_conditions = ValueAt(ValueAt(old, "status"), "conditions");
  const std::string stamp = FormatRfc3339(now);
  for (json& c : *conditions) {
    if (!c.is_object()) continue;  // validation refuses it
    if (StringAt(c, "lastUpdateTime").empty()) c["lastUpdateTime"] = stamp;
    if (!StringAt(c, "lastTransitionTime").empty()) continue;
    // A condition of the same type and status keeps its transition time.
    std::string since = stamp;
    if (old_conditions.is_array()) {
      for (const json& o : old_conditions) {
        if (o.is_object() && StringAt(o, "type") == StringAt(c, "type") &&
            StringAt(o, "status") == StringAt(c, "status") &&
            !StringAt(o, "lastTransitionTime").empty()) {
          since = StringAt(o, "lastTransitionTime");
          break;
        }
      }
    }
    c["lastTransitionTime"] = since;
  }
}

void RecordCertificateSigningRequester(json& obj, const UserInfo& user) {
  json& spec = obj["spec"];
  if (!spec.is_object()) return;  // validation refuses it
  spec["username"] = user.name;
  if (user.uid.empty()) {
    spec.erase("uid");
  } else {
    spec["uid"] = user.uid;
  }
  if (user.groups.empty()) {
    spec.erase("groups");
  } else {
    spec["groups"] = user.groups;
  }
  spec.erase("extra");
}

const Strategy* CertificateSigningRequestStatusStrategy() {
  static const CsrStatusStrategy kStrategy;
  return &kStrategy;
}

const Strategy* CertificateSigningRequestApprovalStrategy() {
  static const CsrApprovalStrategy kStrategy;
  return &kStrategy;
}

}  // namespace kmock::api::kinds
