// Fuzz target: the raw bytes a client sends on one TLS connection to a
// running ApiServer (in-process, in-memory store): request lines, headers
// (Range, Content-Length, Transfer-Encoding, Authorization), bodies, and
// several requests written together. The input is sent whole, the client's
// side is closed, and the answers are read until the server closes or a
// second passes. Whatever comes in, the server must not crash and must
// answer the next connection (checked every 64 inputs).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "api/resource.h"
#include "certs/cert_builder.h"
#include "certs/openssl_util.h"
#include "common/clock.h"
#include "common/rng.h"
#include "registry/registry.h"
#include "server/api_server.h"
#include "store/storage.h"

namespace {

using namespace kmock;  // NOLINT(build/namespaces): a test entry point
using namespace std::chrono_literals;

constexpr char kToken[] = "fuzz-token";

struct Fixture {
  FakeClock clock{TimePoint(std::chrono::seconds(1'800'000'000))};
  Rng rng{5};
  std::unique_ptr<store::Storage> storage;
  std::unique_ptr<registry::Registry> registry;
  std::unique_ptr<server::ApiServer> server;
  SSL_CTX* client = nullptr;

  Fixture() {
    // As the server's main does: a client gone mid-answer is an error on
    // the write, not a signal that ends the process.
    signal(SIGPIPE, SIG_IGN);
    store::StorageOptions so;
    so.in_memory = true;
    so.sync = false;
    so.compaction_interval = std::chrono::milliseconds(0);
    auto opened = store::OpenRocksStorage(so);
    if (!opened.ok()) std::abort();
    storage = std::move(opened).value();
    registry =
        std::make_unique<registry::Registry>(storage.get(), &clock, &rng);
    const api::ResourceInfo* namespaces =
        registry->catalog().Find("", "v1", "namespaces");
    if (namespaces == nullptr ||
        !registry
             ->Create(*namespaces, "",
                      nlohmann::json{{"metadata", {{"name", "default"}}}}, {})
             .ok())
      std::abort();
    auto now = std::chrono::system_clock::now();
    certs::UniquePkey ca_key = std::move(certs::GenerateEcKey()).value();
    certs::UniquePkey key = std::move(certs::GenerateEcKey()).value();
    certs::CertSpec ca_spec{certs::CertRole::kCa,
                            "fuzz-ca",
                            {},
                            {},
                            {},
                            now - 1h,
                            now + 24h,
                            {},
                            {},
                            nullptr};
    certs::UniqueX509 ca =
        std::move(certs::IssueCertificate(ca_spec, ca_key.get(), nullptr,
                                          ca_key.get(), rng))
            .value();
    certs::CertSpec sv{certs::CertRole::kServer,
                       "kube-apiserver",
                       {},
                       {},
                       {"127.0.0.1"},
                       now - 1h,
                       now + 24h,
                       {},
                       {},
                       nullptr};
    certs::UniqueX509 cert =
        std::move(
            certs::IssueCertificate(sv, key.get(), ca.get(), ca_key.get(), rng))
            .value();
    server::ServerOptions o;
    o.port = 0;
    o.server_cert_pem = certs::CertificateToPem(cert.get());
    o.server_key_pem = certs::PrivateKeyToPem(key.get());
    o.client_ca_pem = certs::CertificateToPem(ca.get());
    o.tokens = {{kToken, {"fuzzer", "", {"system:masters"}}}};
    // Short bounds, so a request the input leaves unfinished ends soon.
    o.request_header_timeout = 1s;
    o.request_timeout = 2s;
    o.keep_alive_timeout = 1s;
    o.write_timeout = 1s;
    server =
        std::make_unique<server::ApiServer>(o, registry.get(), &clock, &rng);
    if (!server->Start().ok()) std::abort();
    client = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_verify(client, SSL_VERIFY_NONE, nullptr);
  }
};

Fixture& GetFixture() {
  static Fixture* f = new Fixture();
  return *f;
}

// Sends `data` on a new connection and reads every answer; returns what
// was read.
std::string Exchange(Fixture& f, const uint8_t* data, size_t size) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(f.server->port()));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return "";
  }
  SSL* ssl = SSL_new(f.client);
  SSL_set_fd(ssl, fd);
  std::string out;
  if (SSL_connect(ssl) == 1) {
    if (size > 0) SSL_write(ssl, data, static_cast<int>(size));
    SSL_shutdown(ssl);  // close_notify: nothing more will come
    auto deadline = std::chrono::steady_clock::now() + 1s;
    char buf[16384];
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (SSL_pending(ssl) == 0 && poll(&p, 1, 100) <= 0) continue;
      int n = SSL_read(ssl, buf, sizeof(buf));
      if (n <= 0) break;
      if (out.size() < (1 << 20)) out.append(buf, static_cast<size_t>(n));
    }
  }
  SSL_free(ssl);
  close(fd);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static int runs = 0;
  Fixture& f = GetFixture();
  Exchange(f, data, size);
  if (++runs % 64 == 0) {
    static const std::string probe =
        std::string(
            "GET /version HTTP/1.1\r\nHost: x\r\nAuthorization: "
            "Bearer ") +
        kToken + "\r\nConnection: close\r\n\r\n";
    std::string answer = Exchange(
        f, reinterpret_cast<const uint8_t*>(probe.data()), probe.size());
    if (answer.rfind("HTTP/1.1 200", 0) != 0) std::abort();
  }
  return 0;
}
