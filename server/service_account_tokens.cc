#include "server/service_account_tokens.h"

#include <algorithm>
#include <chrono>

#include "api/field_errors.h"
#include "common/json_view.h"

namespace kmock::server {

namespace {

using nlohmann::json;

constexpr int64_t kDefaultExpiration = 3600;
// The kubelet's pod tokens (1 h 7 s), extended to a year.
constexpr int64_t kWarnOnlyExpiration = 3607;
constexpr int64_t kExtendedExpiration = int64_t{365} * 24 * 3600;
constexpr int64_t kMinExpiration = 600;
constexpr int64_t kMaxExpiration = int64_t{1} << 32;

int64_t UnixSeconds(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch())
      .count();
}

std::string Str(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

// The kinds a token may be bound to, as they are named in its claims.
struct BoundKind {
  const char* kind;
  const char* claim;
};
constexpr BoundKind kBoundKinds[] = {
    {"Pod", "pod"}, {"Secret", "secret"}, {"Node", "node"}};

// The v1 resource of a kind a token may be bound to; null for other kinds.
const api::ResourceInfo* BoundResource(const registry::Registry& registry,
                                       const std::string& kind) {
  for (const BoundKind& b : kBoundKinds) {
    if (kind == b.kind) return registry.catalog().FindByKind("", "v1", kind);
  }
  return nullptr;
}

const char* ClaimOf(const std::string& kind) {
  for (const BoundKind& b : kBoundKinds) {
    if (kind == b.kind) return b.claim;
  }
  return "";
}

Status Unauthorized(const std::string& why) {
  return Status(StatusCode::kUnauthorized, why);
}

}  // namespace

ServiceAccountTokens::ServiceAccountTokens(
    registry::Registry* registry, const Clock* clock, Rng* rng,
    std::shared_ptr<const certs::JwtSigner> signer,
    ServiceAccountTokenOptions options)
    : registry_(registry),
      clock_(clock),
      rng_(rng),
      signer_(std::move(signer)),
      options_(std::move(options)) {}

Result<json> ServiceAccountTokens::Issue(const std::string& ns,
                                         const std::string& name,
                                         const json& request) const {
  const api::ResourceInfo* accounts =
      registry_->catalog().Find("", "v1", "serviceaccounts");
  if (accounts == nullptr) return InternalError("serviceaccounts not served");
  KMOCK_ASSIGN_OR_RETURN(json account, registry_->Get(*accounts, ns, name));

  json spec = ObjectAt(request, "spec");
  if (!spec.is_object()) spec = json::object();
  api::FieldErrors errs;
  int64_t expiration = kDefaultExpiration;
  if (spec.contains("expirationSeconds") &&
      spec["expirationSeconds"].is_number_integer()) {
    expiration = spec["expirationSeconds"].get<int64_t>();
  }
  if (expiration < kMinExpiration) {
    errs.Invalid("spec.expirationSeconds", expiration,
                 "may not specify a duration less than 10 minutes");
  } else if (expiration > kMaxExpiration) {
    errs.Invalid("spec.expirationSeconds", expiration,
                 "may not specify a duration larger than 2^32 seconds");
  }
  json audiences = spec.value("audiences", json::array());
  if (!audiences.is_array() || audiences.empty()) {
    audiences = json::array({options_.issuer});
  }
  const json& bound = ObjectAt(spec, "boundObjectRef");
  json bound_claim;
  std::string bound_kind;
  if (bound.is_object() && !bound.empty()) {
    bound_kind = Str(bound, "kind");
    const api::ResourceInfo* res = BoundResource(*registry_, bound_kind);
    if (res == nullptr) {
      errs.NotSupported("spec.boundObjectRef.kind", bound_kind,
                        {"Pod", "Node", "Secret"});
    } else if (Str(bound, "apiVersion") != "v1") {
      errs.NotSupported("spec.boundObjectRef.apiVersion",
                        Str(bound, "apiVersion"), {"v1"});
    }
  }
  if (!errs.empty()) {
    return errs.ToStatus("TokenRequest", "authentication.k8s.io",
                         "tokenrequests", name);
  }
  json claims_k8s = {
      {"namespace", ns},
      {"serviceaccount",
       {{"name", name}, {"uid", Str(ObjectAt(account, "metadata"), "uid")}}}};
  if (!bound_kind.empty()) {
    const api::ResourceInfo* res = BoundResource(*registry_, bound_kind);
    KMOCK_ASSIGN_OR_RETURN(
        json object,
        registry_->Get(*res, res->namespaced ? ns : "", Str(bound, "name")));
    std::string uid = Str(ObjectAt(object, "metadata"), "uid");
    std::string want_uid = Str(bound, "uid");
    if (!want_uid.empty() && want_uid != uid) {
      return Status(StatusCode::kConflict,
                    "the UID in the bound object reference (" + want_uid +
                        ") does not match the UID in record. The object "
                        "might have been deleted and then recreated");
    }
    claims_k8s[ClaimOf(bound_kind)] = {{"name", Str(bound, "name")},
                                       {"uid", uid}};
  }
  const TimePoint now = clock_->Now();
  const int64_t iat = UnixSeconds(now);
  // kube-apiserver's --service-account-extend-token-expiration (on by
  // default): the kubelet's pod token for the API (asked for 3607 s) lives
  // a year, and says after when it should have been renewed.
  int64_t lifetime = expiration;
  if (bound_kind == "Pod" && expiration == kWarnOnlyExpiration &&
      audiences == json::array({options_.issuer})) {
    lifetime = kExtendedExpiration;
    claims_k8s["warnafter"] = iat + expiration;
  }
  json claims = {{"aud", audiences},
                 {"exp", iat + lifetime},
                 {"iat", iat},
                 {"iss", options_.issuer},
                 {"jti", rng_->Uuid()},
                 {"kubernetes.io", claims_k8s},
                 {"nbf", iat},
                 {"sub", "system:serviceaccount:" + ns + ":" + name}};
  KMOCK_ASSIGN_OR_RETURN(std::string token, signer_->Sign(claims));

  json out = request.is_object() ? request : json::object();
  out["apiVersion"] = "authentication.k8s.io/v1";
  out["kind"] = "TokenRequest";
  out["metadata"] = {{"name", name},
                     {"namespace", ns},
                     {"creationTimestamp", FormatRfc3339(now)}};
  spec["audiences"] = audiences;
  spec["expirationSeconds"] = expiration;
  if (!spec.contains("boundObjectRef")) spec["boundObjectRef"] = nullptr;
  out["spec"] = spec;
  out["status"] = {{"token", token},
                   {"expirationTimestamp",
                    FormatRfc3339(now + std::chrono::seconds(expiration))}};
  return out;
}

Result<registry::UserInfo> ServiceAccountTokens::Authenticate(
    std::string_view token, const std::vector<std::string>& audiences,
    std::vector<std::string>* token_audiences) const {
  KMOCK_ASSIGN_OR_RETURN(json claims, signer_->Verify(token));
  if (Str(claims, "iss") != options_.issuer) {
    return Unauthorized("token issued by another issuer");
  }
  const int64_t now = UnixSeconds(clock_->Now());
  auto time_claim = [&claims](const char* key) {
    auto it = claims.find(key);
    return it != claims.end() && it->is_number_integer() ? it->get<int64_t>()
                                                         : int64_t{-1};
  };
  if (time_claim("exp") < 0 || now >= time_claim("exp")) {
    return Unauthorized("token has expired");
  }
  if (time_claim("nbf") > now) return Unauthorized("token not valid yet");
  std::vector<std::string> wanted = audiences;
  if (wanted.empty()) wanted.push_back(options_.issuer);
  std::vector<std::string> shared;
  const json& aud = ValueAt(claims, "aud");
  for (const std::string& a : wanted) {
    if (aud.is_array() && std::find(aud.begin(), aud.end(), a) != aud.end()) {
      shared.push_back(a);
    }
  }
  if (shared.empty()) return Unauthorized("token audiences are invalid");

  const json& k8s = ObjectAt(claims, "kubernetes.io");
  const std::string ns = Str(k8s, "namespace");
  const json& sa = ObjectAt(k8s, "serviceaccount");
  const std::string name = Str(sa, "name");
  const api::ResourceInfo* accounts =
      registry_->catalog().Find("", "v1", "serviceaccounts");
  auto account = accounts ? registry_->Get(*accounts, ns, name)
                          : Result<json>(NotFoundError("serviceaccounts"));
  if (!account.ok() ||
      Str(ObjectAt(*account, "metadata"), "uid") != Str(sa, "uid")) {
    return Unauthorized("service account " + ns + "/" + name +
                        " has been deleted");
  }
  for (const BoundKind& bound : kBoundKinds) {
    const json& ref = ObjectAt(k8s, bound.claim);
    if (!ref.is_object() || ref.empty()) continue;
    const api::ResourceInfo* res = BoundResource(*registry_, bound.kind);
    auto object =
        registry_->Get(*res, res->namespaced ? ns : "", Str(ref, "name"));
    if (!object.ok() ||
        Str(ObjectAt(*object, "metadata"), "uid") != Str(ref, "uid") ||
        ObjectAt(*object, "metadata").contains("deletionTimestamp")) {
      return Unauthorized("the token's bound " + std::string(bound.claim) +
                          " is gone");
    }
  }
  if (token_audiences != nullptr) *token_audiences = shared;
  registry::UserInfo user;
  user.name = "system:serviceaccount:" + ns + ":" + name;
  user.uid = Str(sa, "uid");
  user.groups = {"system:serviceaccounts", "system:serviceaccounts:" + ns,
                 "system:authenticated"};
  return user;
}

json ServiceAccountTokens::Review(const json& review) const {
  json out = review.is_object() ? review : json::object();
  out["apiVersion"] = "authentication.k8s.io/v1";
  out["kind"] = "TokenReview";
  if (!out.contains("metadata") || !out["metadata"].is_object()) {
    out["metadata"] = json::object();
  }
  out["metadata"]["creationTimestamp"] = nullptr;
  const json& spec = ObjectAt(out, "spec");
  std::vector<std::string> audiences;
  const json& wanted = ValueAt(spec, "audiences");
  if (wanted.is_array()) {
    for (const json& a : wanted) {
      if (a.is_string()) audiences.push_back(a.get<std::string>());
    }
  }
  std::vector<std::string> shared;
  auto user = Authenticate(Str(spec, "token"), audiences, &shared);
  json status = json::object();
  if (user.ok()) {
    status["authenticated"] = true;
    status["user"] = {
        {"username", user->name}, {"uid", user->uid}, {"groups", user->groups}};
    status["audiences"] = shared;
  } else {
    status["user"] = json::object();
    status["error"] = "[invalid bearer token, " + user.status().message() + "]";
  }
  out["status"] = std::move(status);
  return out;
}

}  // namespace kmock::server
