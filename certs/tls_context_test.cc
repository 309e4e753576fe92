#include "certs/tls_context.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <memory>

#include "certs/client_cert.h"
#include "certs/identity.h"
#include "certs/openssl_util.h"

namespace kmock::certs {
namespace {

using CtxPtr = std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)>;
using SslPtr = std::unique_ptr<SSL, decltype(&SSL_free)>;

// A full TLS handshake between two SSL objects over an in-memory BIO pair.
// The certificates use the real clock because the handshake verifies them
// against the current time.
class TlsContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PkiOptions o;
    o.dns_names = {"localhost", "kubernetes.default.svc"};
    o.ip_addresses = {"127.0.0.1"};
    o.clock = &clock_;
    o.rng = &rng_;
    auto p = LoadOrCreatePki(o);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    pki_ = std::move(p).value();
    auto q = LoadOrCreatePki(o);
    ASSERT_TRUE(q.ok());
    other_ = std::move(q).value();
    ASSERT_TRUE(ConfigureServerTls(server_ctx_.get(), pki_).ok());
  }

  // Client trusting `ca_pem`, expecting `host`, presenting cert/key if given.
  CtxPtr ClientCtx(const std::string& ca_pem, const std::string& cert_pem,
                   const std::string& key_pem) {
    CtxPtr ctx(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
    auto ca = ParseCertificatePem(ca_pem);
    EXPECT_TRUE(ca.ok());
    X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx.get()), ca->get());
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
    if (!cert_pem.empty()) {
      auto cert = ParseCertificatePem(cert_pem);
      auto key = ParsePrivateKeyPem(key_pem);
      EXPECT_TRUE(cert.ok() && key.ok());
      SSL_CTX_use_certificate(ctx.get(), cert->get());
      SSL_CTX_use_PrivateKey(ctx.get(), key->get());
    }
    return ctx;
  }

  // Runs the handshake; returns true when both sides completed it.
  bool Handshake(SSL_CTX* client_ctx, const std::string& host) {
    client_.reset(SSL_new(client_ctx));
    server_.reset(SSL_new(server_ctx_.get()));
    BIO *c = nullptr, *s = nullptr;
    BIO_new_bio_pair(&c, 0, &s, 0);
    SSL_set_bio(client_.get(), c, c);
    SSL_set_bio(server_.get(), s, s);
    SSL_set_connect_state(client_.get());
    SSL_set_accept_state(server_.get());
    SSL_set_tlsext_host_name(client_.get(), host.c_str());
    SSL_set1_host(client_.get(), host.c_str());
    bool client_done = false, server_done = false;
    for (int i = 0; i < 20 && !(client_done && server_done); ++i) {
      for (auto [ssl, done] : {std::pair{client_.get(), &client_done},
                               std::pair{server_.get(), &server_done}}) {
        if (*done) continue;
        int rc = SSL_do_handshake(ssl);
        if (rc == 1) {
          *done = true;
          continue;
        }
        int err = SSL_get_error(ssl, rc);
        if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) {
          ERR_clear_error();
          return false;
        }
      }
    }
    return client_done && server_done;
  }

  RealClock clock_;
  Rng rng_{99};
  Pki pki_, other_;
  CtxPtr server_ctx_{SSL_CTX_new(TLS_server_method()), SSL_CTX_free};
  SslPtr client_{nullptr, SSL_free};
  SslPtr server_{nullptr, SSL_free};
};

TEST_F(TlsContextTest, AdminCertificateAuthenticates) {
  CtxPtr client =
      ClientCtx(pki_.ca_cert_pem, pki_.admin_cert_pem, pki_.admin_key_pem);
  ASSERT_TRUE(Handshake(client.get(), "localhost"));
  EXPECT_GE(SSL_version(server_.get()), TLS1_2_VERSION);
  auto id = IdentityFromSsl(server_.get());
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(*id, (Identity{"kubernetes-admin", {"system:masters"}}));
}

TEST_F(TlsContextTest, ClientCertificateIsOptional) {
  CtxPtr client = ClientCtx(pki_.ca_cert_pem, "", "");
  ASSERT_TRUE(Handshake(client.get(), "kubernetes.default.svc"));
  auto id = IdentityFromSsl(server_.get());
  EXPECT_EQ(id.status().code(), StatusCode::kNotFound);
}

TEST_F(TlsContextTest, CertificateFromAnotherCaFailsTheHandshake) {
  CtxPtr client =
      ClientCtx(pki_.ca_cert_pem, other_.admin_cert_pem, other_.admin_key_pem);
  EXPECT_FALSE(Handshake(client.get(), "localhost"));
}

TEST_F(TlsContextTest, ClientRejectsAServerNameOutsideTheSans) {
  CtxPtr client = ClientCtx(pki_.ca_cert_pem, "", "");
  EXPECT_FALSE(Handshake(client.get(), "evil.example"));
  // An IP literal is checked against the IP SANs.
  CtxPtr ip_client = ClientCtx(pki_.ca_cert_pem, "", "");
  EXPECT_FALSE(Handshake(ip_client.get(), "10.9.9.9"));
  EXPECT_TRUE(Handshake(ip_client.get(), "127.0.0.1"));
}

TEST_F(TlsContextTest, ClientTrustingAnotherCaRejectsTheServer) {
  CtxPtr client = ClientCtx(other_.ca_cert_pem, "", "");
  EXPECT_FALSE(Handshake(client.get(), "localhost"));
}

TEST_F(TlsContextTest, IssuedUserCertificateAuthenticates) {
  auto cc = IssueClientCertificate(pki_, "jane", {"team-a"}, clock_, rng_);
  ASSERT_TRUE(cc.ok());
  CtxPtr client = ClientCtx(pki_.ca_cert_pem, cc->cert_pem, cc->key_pem);
  ASSERT_TRUE(Handshake(client.get(), "127.0.0.1"));
  auto id = IdentityFromSsl(server_.get());
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(*id, (Identity{"jane", {"team-a"}}));
}

}  // namespace
}  // namespace kmock::certs
