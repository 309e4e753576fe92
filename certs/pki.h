// The PKI of a kubemock cluster: one ECDSA P-256 CA, the API server's
// serving certificate, the admin client certificate and the admin bearer
// token.
//
// LoadOrCreatePki creates them on first start and keeps them under
// <dir>/pki/ (private keys and the token at mode 0600, every file written
// atomically). Later starts reuse them; the serving certificate alone is
// reissued from the same CA when it lacks a SAN now requested or expires
// within kRenewBefore, and the admin certificate when it expires soon. With
// an empty dir everything lives in memory only (serve --in-memory).
//
// Thread safety: LoadOrCreatePki must not run concurrently on the same dir
// (one server process owns a data dir). A Pki is a plain value.
#ifndef KMOCK_CERTS_PKI_H_
#define KMOCK_CERTS_PKI_H_

#include <chrono>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/rng.h"
#include "common/status.h"

namespace kmock::certs {

inline constexpr char kCaCommonName[] = "kubemock-ca";
inline constexpr char kServerCommonName[] = "kube-apiserver";
inline constexpr char kAdminCommonName[] = "kubernetes-admin";
inline constexpr char kAdminGroup[] = "system:masters";

// Validity periods; certificates start kBackdate before "now" so that a
// client whose clock is slightly behind still accepts them.
inline constexpr std::chrono::hours kCaValidity{24 * 365 * 10};
inline constexpr std::chrono::hours kLeafValidity{24 * 365};
inline constexpr std::chrono::hours kRenewBefore{24 * 30};
inline constexpr std::chrono::hours kBackdate{1};

struct PkiOptions {
  // Data directory; files go to <dir>/pki/. Empty: in memory only.
  std::string dir;
  // Every name and address a client may dial; all become SANs of the
  // serving certificate. An entry of dns_names that is an IP literal is
  // treated as an IP SAN.
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;
  const Clock* clock = nullptr;  // REQUIRED
  Rng* rng = nullptr;            // REQUIRED: serial numbers and the token
};

// Where the PKI lives on disk; every field is empty for an in-memory PKI.
struct PkiPaths {
  std::string dir;  // <dir>/pki
  std::string ca_cert, ca_key;
  std::string server_cert, server_key;
  std::string admin_cert, admin_key;
  std::string admin_token;
  std::string sa_key;  // signs service account tokens
};

struct Pki {
  std::string ca_cert_pem;
  std::string ca_key_pem;  // needed to issue further client certificates
  std::string server_cert_pem;
  std::string server_key_pem;
  std::string admin_cert_pem;
  std::string admin_key_pem;
  std::string admin_token;
  // The EC P-256 key that signs service account tokens (kubeadm's sa.key).
  std::string sa_key_pem;
  PkiPaths paths;
  // What this call did, one line each, for the startup log: e.g.
  // "created CA", "reissued serving certificate: missing SAN IP:10.0.0.5".
  std::vector<std::string> actions;
};

// The file layout under `dir` (paths.dir = dir + "/pki").
PkiPaths PkiPathsFor(const std::string& dir);

Result<Pki> LoadOrCreatePki(const PkiOptions& options);

}  // namespace kmock::certs

#endif  // KMOCK_CERTS_PKI_H_
