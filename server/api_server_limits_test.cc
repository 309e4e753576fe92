// The connection limits of ApiServer over real sockets: connections beyond
// max_connections are closed before the TLS handshake, and a client that
// trickles its handshake is cut at request_header_timeout however often it
// sends.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "certs/cert_builder.h"
#include "certs/openssl_util.h"
#include "registry/test_registry.h"
#include "server/api_server.h"
#include "store/storage.h"

namespace kmock::server {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Waits up to `limit` for the server to close fd; how long that took, or
// nullopt if it stayed open.
std::optional<SteadyClock::duration> TimeToClose(
    int fd, std::chrono::milliseconds limit) {
  auto start = SteadyClock::now();
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        start + limit - SteadyClock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) == 1) {
      char buf[256];
      ssize_t n = recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) return SteadyClock::now() - start;
    }
  }
}

class ApiServerLimitsTest : public ::testing::Test {
 protected:
  void StartServer(int max_connections,
                   std::chrono::milliseconds header_timeout) {
    storage_ = registry::testing::OpenMemoryStore();
    ASSERT_NE(storage_, nullptr);
    registry_ =
        std::make_unique<registry::Registry>(storage_.get(), &clock_, &rng_);

    auto now = std::chrono::system_clock::now();
    ca_key_ = std::move(certs::GenerateEcKey()).value();
    server_key_ = std::move(certs::GenerateEcKey()).value();
    certs::CertSpec ca{certs::CertRole::kCa,
                       "test-ca",
                       {},
                       {},
                       {},
                       now - 1h,
                       now + 24h,
                       {},
                       {},
                       nullptr};
    ca_ = std::move(certs::IssueCertificate(ca, ca_key_.get(), nullptr,
                                            ca_key_.get(), rng_))
              .value();
    certs::CertSpec sv{certs::CertRole::kServer,
                       "kube-apiserver",
                       {},
                       {"localhost"},
                       {"127.0.0.1"},
                       now - 1h,
                       now + 24h,
                       {},
                       {},
                       nullptr};
    auto cert =
        std::move(certs::IssueCertificate(sv, server_key_.get(), ca_.get(),
                                          ca_key_.get(), rng_))
            .value();
    ServerOptions o;
    o.port = 0;
    o.server_cert_pem = certs::CertificateToPem(cert.get());
    o.server_key_pem = certs::PrivateKeyToPem(server_key_.get());
    o.client_ca_pem = certs::CertificateToPem(ca_.get());
    o.tokens = {{"secret-token", {"bob", "", {"system:masters"}}}};
    o.max_connections = max_connections;
    o.request_header_timeout = header_timeout;
    server_ = std::make_unique<ApiServer>(o, registry_.get(), &clock_, &rng_);
    Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }

  void TearDown() override {
    if (server_) server_->Stop();
  }

  int VersionStatus() {
    httplib::SSLClient c("127.0.0.1", server_->port());
    c.enable_server_certificate_verification(false);
    c.set_connection_timeout(5, 0);
    c.set_read_timeout(5, 0);
    auto res = c.Get("/version");
    return res ? res->status : -1;
  }

  FakeClock clock_{TimePoint(std::chrono::seconds(1'800'000'000))};
  Rng rng_{11};
  std::unique_ptr<store::Storage> storage_;
  std::unique_ptr<registry::Registry> registry_;
  certs::UniquePkey ca_key_, server_key_;
  certs::UniqueX509 ca_;
  std::unique_ptr<ApiServer> server_;
};

TEST_F(ApiServerLimitsTest, ConnectionsBeyondTheLimitAreClosedAtOnce) {
  StartServer(2, 30s);
  EXPECT_EQ(VersionStatus(), 200);
  std::this_thread::sleep_for(200ms);  // its connection is gone
  int a = Connect(server_->port());
  int b = Connect(server_->port());
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  std::this_thread::sleep_for(200ms);  // both are in their handshakes
  int c = Connect(server_->port());
  ASSERT_GE(c, 0);
  auto closed = TimeToClose(c, 2000ms);
  ASSERT_TRUE(closed.has_value()) << "the third connection was kept";
  EXPECT_LT(*closed, 1s);
  // The two within the limit are still open.
  EXPECT_FALSE(TimeToClose(a, 100ms).has_value());
  EXPECT_FALSE(TimeToClose(b, 100ms).has_value());
  close(a);
  close(b);
  close(c);
  // Room again once they are gone.
  bool served = false;
  for (int i = 0; i < 50 && !served; ++i) {
    served = VersionStatus() == 200;
    if (!served) std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(served);
}

TEST_F(ApiServerLimitsTest, ATricklingHandshakeIsCutAtTheHeaderTimeout) {
  StartServer(100, 1000ms);
  int fd = Connect(server_->port());
  ASSERT_GE(fd, 0);
  // A TLS record header announcing 512 bytes, then one byte every 200ms:
  // each read succeeds well within the per-read timeout.
  const unsigned char record[] = {0x16, 0x03, 0x01, 0x02, 0x00};
  ASSERT_EQ(send(fd, record, sizeof(record), MSG_NOSIGNAL),
            ssize_t(sizeof(record)));
  auto start = SteadyClock::now();
  std::optional<SteadyClock::duration> closed;
  while (!closed && SteadyClock::now() - start < 5s) {
    char junk = 'x';
    send(fd, &junk, 1, MSG_NOSIGNAL);
    closed = TimeToClose(fd, 200ms);
    if (closed) closed = SteadyClock::now() - start;
  }
  close(fd);
  ASSERT_TRUE(closed.has_value()) << "still open after 5s";
  EXPECT_GE(*closed, 700ms);
  EXPECT_LT(*closed, 2500ms);
  // Others are served meanwhile and after.
  EXPECT_EQ(VersionStatus(), 200);
}

TEST_F(ApiServerLimitsTest, IdleConnectionsDoNotBlockOthers) {
  StartServer(1000, 30s);
  std::vector<int> idle;
  for (int i = 0; i < 200; ++i) {
    int fd = Connect(server_->port());
    ASSERT_GE(fd, 0);
    idle.push_back(fd);
  }
  auto start = SteadyClock::now();
  EXPECT_EQ(VersionStatus(), 200);
  EXPECT_LT(SteadyClock::now() - start, 2s);
  for (int fd : idle) close(fd);
}

}  // namespace
}  // namespace kmock::server
