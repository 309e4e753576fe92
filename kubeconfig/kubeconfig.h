// Writing kubeconfig files that point kubectl at a kubemock cluster.
//
// MergeKubeconfig adds (or replaces) one cluster, user and context, all
// named Entry::name, in an existing kubeconfig and makes that context
// current, leaving every other entry, preference and extension as it was
// (YAML comments are not kept, as with `kubectl config`). It takes the same
// "<file>.lock" lock file kubectl takes while writing. Files are written
// atomically (temporary file in the same directory, then rename) at mode
// 0600; a missing directory is created at 0700. A file that does not parse
// as a kubeconfig is an error and is left untouched.
//
// Thread safety: free functions. Concurrent writers of one file are
// serialised by the lock file (the loser gets an error).
#ifndef KMOCK_KUBECONFIG_KUBECONFIG_H_
#define KMOCK_KUBECONFIG_KUBECONFIG_H_

#include <string>

#include "common/status.h"

namespace kmock::kubeconfig {

struct Entry {
  std::string name = "kubemock";  // cluster, user and context name
  std::string server;             // e.g. "https://127.0.0.1:6443"
  std::string ca_pem;             // certificate-authority-data
  std::string client_cert_pem;    // client-certificate-data (optional)
  std::string client_key_pem;     // client-key-data (optional)
  std::string token;              // optional bearer token
};

// Where kubectl would write: the first existing file named in $KUBECONFIG
// (a colon-separated list), else its first entry, else $HOME/.kube/config.
std::string DefaultKubeconfigPath();
// The same rule over explicit values (for tests).
std::string DefaultKubeconfigPathFrom(const std::string& kubeconfig_env,
                                      const std::string& home);

Status MergeKubeconfig(const std::string& path, const Entry& entry);

// Writes a kubeconfig holding only this cluster, user and context.
Status WriteStandaloneKubeconfig(const std::string& path, const Entry& entry);

// The text forms behind the two functions above (no file access).
// `existing` may be empty (a new file).
Result<std::string> MergeKubeconfigText(const std::string& existing,
                                        const Entry& entry);
Result<std::string> StandaloneKubeconfigText(const Entry& entry);

}  // namespace kmock::kubeconfig

#endif  // KMOCK_KUBECONFIG_KUBECONFIG_H_
