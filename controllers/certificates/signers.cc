#include "controllers/certificates/signers.h"

#include <algorithm>
#include <set>

namespace kmock::controllers::certificates {

namespace {

std::string ClientUsagesRefusal(const std::vector<std::string>& usages) {
  bool client_auth = false;
  for (const std::string& u : usages) {
    if (u == "client auth") {
      client_auth = true;
    } else if (u != "digital signature" && u != "key encipherment") {
      return "invalid usage for client certificate: " + u;
    }
  }
  if (!client_auth)
    return "missing required usage for client certificate: client auth";
  return "";
}

// The usages of a node's certificate: `required` exactly, plus key
// encipherment for an RSA key.
std::string NodeUsagesRefusal(const std::vector<std::string>& usages,
                              const certs::CertificateRequest& request,
                              const std::string& purpose) {
  std::set<std::string> got(usages.begin(), usages.end());
  std::set<std::string> want = {"digital signature", purpose};
  std::set<std::string> with_rsa = want;
  with_rsa.insert("key encipherment");
  if (got == want || (request.key_algorithm == "RSA" && got == with_rsa))
    return "";
  std::string list;
  for (const std::string& u : want) list += (list.empty() ? "" : " ") + u;
  return "usages did not match [" + list + "]";
}

std::string NodeSubjectRefusal(const certs::CertificateRequest& request) {
  if (request.organizations != std::vector<std::string>{"system:nodes"})
    return "subject organization is not system:nodes";
  if (request.common_name.rfind("system:node:", 0) != 0)
    return "subject common name does not begin with system:node:";
  return "";
}

}  // namespace

SignerVerdict CheckForSigner(const std::string& signer_name,
                             const certs::CertificateRequest& request,
                             const std::vector<std::string>& usages) {
  SignerVerdict v;
  if (signer_name == kKubeApiServerClientSigner) {
    v.ours = true;
    v.refusal = ClientUsagesRefusal(usages);
  } else if (signer_name == kKubeletClientSigner) {
    v.ours = true;
    v.refusal = NodeSubjectRefusal(request);
    if (v.refusal.empty() && !request.dns_names.empty())
      v.refusal = "DNS subjectAltNames are not allowed";
    if (v.refusal.empty() && !request.email_addresses.empty())
      v.refusal = "Email subjectAltNames are not allowed";
    if (v.refusal.empty() && !request.ip_addresses.empty())
      v.refusal = "IP subjectAltNames are not allowed";
    if (v.refusal.empty() && !request.uris.empty())
      v.refusal = "URI subjectAltNames are not allowed";
    if (v.refusal.empty())
      v.refusal = NodeUsagesRefusal(usages, request, "client auth");
  } else if (signer_name == kKubeletServingSigner) {
    v.ours = true;
    v.refusal = NodeSubjectRefusal(request);
    if (v.refusal.empty() && request.dns_names.empty() &&
        request.ip_addresses.empty())
      v.refusal = "DNS or IP subjectAltName is required";
    if (v.refusal.empty() && !request.email_addresses.empty())
      v.refusal = "Email subjectAltNames are not allowed";
    if (v.refusal.empty() && !request.uris.empty())
      v.refusal = "URI subjectAltNames are not allowed";
    if (v.refusal.empty())
      v.refusal = NodeUsagesRefusal(usages, request, "server auth");
  }
  return v;
}

}  // namespace kmock::controllers::certificates
