// The HTTPS Kubernetes API server: what cmd/main.cc starts.
//
// It serves, over TLS with optional client certificates and bearer tokens:
// /version, /healthz, /livez, /readyz; discovery (legacy and aggregated
// v2/v2beta1); OpenAPI v2/v3; and every resource in the catalog through the
// registry (get, list, watch, create, update, patch, delete,
// deletecollection, with Table output and watch streaming).
//
// Usage:
//   ApiServer server(options, &registry, &clock, &rng);
//   Status st = server.Start();   // listening once this returns OK
//   ... server.port() ...
//   server.Stop();                // ends every watch and stops listening
//
// Thread safety: Start and Stop may be called from any thread but not
// concurrently with each other; port() and ready() are safe from any thread.
// Each connection is served on its own worker thread from a pool that grows
// on demand up to max_connections (server/connection_pool.h); a watchdog
// closes connections that pass their deadlines (server/connection_watchdog.h).
// docs/limits.md lists every limit and what a client sees when it is hit.
#ifndef KMOCK_SERVER_API_SERVER_H_
#define KMOCK_SERVER_API_SERVER_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/resource.h"
#include "common/clock.h"
#include "common/rng.h"
#include "common/status.h"
#include "registry/registry.h"
#include "server/authn.h"
#include "sim/container.h"

namespace kmock::server {

struct ServerOptions {
  std::string bind_address = "127.0.0.1";
  int port = 6443;  // 0 = pick a free port (see ApiServer::port())
  // PEM: the serving certificate (optionally followed by its chain), its
  // key, and the CA that signs client certificates ("" = no client certs).
  std::string server_cert_pem;
  std::string server_key_pem;
  std::string client_ca_pem;
  // Bearer tokens and the users they stand for.
  std::vector<TokenUser> tokens;
  // The EC P-256 key (PEM) that signs and checks service account tokens;
  // empty: serviceaccounts/<name>/token and tokenreviews are not served.
  std::string service_account_key_pem;
  // Connections served at once. Each holds one worker thread for its whole
  // life (handshake, keep-alive, every open watch or stream); threads start
  // on demand and retire when idle. A connection beyond the limit is closed
  // before its TLS handshake.
  int max_connections = 10000;
  // The old name of max_connections; when > 0 it wins.
  int threads = 0;
  // Larger request bodies get 413.
  size_t max_request_body_bytes = 3 * 1024 * 1024;
  // From the start of the TLS handshake to the end of the first request
  // header; and after a response, from its end to the end of the next
  // request's header (on top of keep_alive_timeout). The connection is closed
  // when it passes, however slowly the bytes trickle in.
  std::chrono::milliseconds request_header_timeout{32000};
  // A request with a body must be read, served and answered within this.
  std::chrono::milliseconds request_timeout{60000};
  // An idle keep-alive connection is closed after this.
  std::chrono::milliseconds keep_alive_timeout{30000};
  // A response write (a watch event included) that cannot progress for this
  // long ends the connection; a watch that is not read is ended this way.
  std::chrono::milliseconds write_timeout{10000};
  // Stack of each connection's thread.
  size_t thread_stack_bytes = 4 * 1024 * 1024;
  // What /version reports and the OpenAPI documents carry.
  std::string kubernetes_version = "1.33.0";
  // Watches without timeoutSeconds end after this times (1 + r), r in [0, 1).
  std::chrono::seconds min_request_timeout{1800};
  // Log every request to stderr.
  bool verbose = false;
  // The resources served; null = the registry's catalog.
  const api::Catalog* catalog = nullptr;
  // The types of the built-in kinds, for the OpenAPI documents; null =
  // api::Schema::Builtin().
  const api::Schema* schema = nullptr;
  // Where pods/log and pods/exec find the containers (the kubelets);
  // null: containers print nothing and cannot be reached.
  const sim::ContainerDirectory* containers = nullptr;
};

class ApiServer {
 public:
  // registry, clock and rng must outlive the server.
  ApiServer(ServerOptions options, registry::Registry* registry,
            const Clock* clock, Rng* rng);
  ~ApiServer();  // calls Stop()
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  // Loads the TLS material, binds and starts serving. Fails with a clear
  // message when the address is taken (no SO_REUSEPORT sharing).
  Status Start();
  // The bound port (the chosen one when options.port was 0). REQUIRES: Start
  // ok.
  int port() const;
  // Ends every watch stream and stops listening. Idempotent.
  void Stop();
  // True between a successful Start and Stop.
  bool ready() const;
  // TokenRequest (serviceaccounts/<name>/token) in-process, as the kubelets
  // ask for projected tokens: the TokenRequest with its status, or the
  // error a client would get (kServiceUnavailable without a signing key).
  Result<nlohmann::json> IssueServiceAccountToken(
      const std::string& ns, const std::string& name,
      const nlohmann::json& request) const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kmock::server

#endif  // KMOCK_SERVER_API_SERVER_H_
