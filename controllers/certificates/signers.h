// The built-in signers of kube-controller-manager and what each accepts of
// an approved request: kubernetes.io/kube-apiserver-client (client
// certificates for any user), kube-apiserver-client-kubelet (a node's
// client certificate: O=system:nodes, CN=system:node:<name>) and
// kubelet-serving (a node's serving certificate). Other signer names are
// not ours to sign.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_CONTROLLERS_CERTIFICATES_SIGNERS_H_
#define KMOCK_CONTROLLERS_CERTIFICATES_SIGNERS_H_

#include <string>
#include <vector>

#include "certs/certificate_request.h"

namespace kmock::controllers::certificates {

inline constexpr char kKubeApiServerClientSigner[] =
    "kubernetes.io/kube-apiserver-client";
inline constexpr char kKubeletClientSigner[] =
    "kubernetes.io/kube-apiserver-client-kubelet";
inline constexpr char kKubeletServingSigner[] = "kubernetes.io/kubelet-serving";

struct SignerVerdict {
  bool ours = false;    // one of the built-in signers
  std::string refusal;  // why the signer will not sign ("": it will)
};

SignerVerdict CheckForSigner(const std::string& signer_name,
                             const certs::CertificateRequest& request,
                             const std::vector<std::string>& usages);

}  // namespace kmock::controllers::certificates

#endif  // KMOCK_CONTROLLERS_CERTIFICATES_SIGNERS_H_
