#include "certs/jwt.h"

#include <openssl/ecdsa.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include <optional>

namespace kmock::certs {

namespace {

using nlohmann::json;

constexpr size_t kCoordinate = 32;  // P-256

Status Unauthorized(const std::string& why) {
  return Status(StatusCode::kUnauthorized, why);
}

struct MdCtxDeleter {
  void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); }
};
using UniqueMdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxDeleter>;
struct EcdsaSigDeleter {
  void operator()(ECDSA_SIG* p) const { ECDSA_SIG_free(p); }
};
using UniqueEcdsaSig = std::unique_ptr<ECDSA_SIG, EcdsaSigDeleter>;

std::string Header(const std::string& kid) {
  return json{{"alg", "ES256"}, {"kid", kid}}.dump();
}

}  // namespace

std::string Base64UrlEncode(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    unsigned v = unsigned(uint8_t(bytes[i])) << 16 |
                 unsigned(uint8_t(bytes[i + 1])) << 8 | uint8_t(bytes[i + 2]);
    for (int k = 3; k >= 0; --k) out.push_back(kAlphabet[(v >> (6 * k)) & 63]);
  }
  size_t rest = bytes.size() - i;
  if (rest > 0) {
    unsigned v = unsigned(uint8_t(bytes[i])) << 16;
    if (rest == 2) v |= unsigned(uint8_t(bytes[i + 1])) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    if (rest == 2) out.push_back(kAlphabet[(v >> 6) & 63]);
  }
  return out;
}

std::optional<std::string> Base64UrlDecode(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
  };
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  unsigned bits = 0;
  int count = 0;
  for (char c : text) {
    int v = value(c);
    if (v < 0) return std::nullopt;
    bits = bits << 6 | unsigned(v);
    if (++count == 4) {
      out.push_back(char(bits >> 16));
      out.push_back(char(bits >> 8));
      out.push_back(char(bits));
      bits = 0;
      count = 0;
    }
  }
  if (count == 2) out.push_back(char(bits >> 4));
  if (count == 3) {
    out.push_back(char(bits >> 10));
    out.push_back(char(bits >> 2));
  }
  return out;
}

Result<std::shared_ptr<const JwtSigner>> JwtSigner::FromPrivateKeyPem(
    const std::string& pem) {
  KMOCK_ASSIGN_OR_RETURN(UniquePkey key, ParsePrivateKeyPem(pem));
  if (EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_EC ||
      EVP_PKEY_get_bits(key.get()) != 256) {
    return InternalError("the service account key must be EC P-256");
  }
  unsigned char* der = nullptr;
  int len = i2d_PUBKEY(key.get(), &der);
  if (len <= 0) return InternalError("cannot encode the public key");
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(der, size_t(len), digest);
  OPENSSL_free(der);
  auto signer = std::shared_ptr<JwtSigner>(new JwtSigner());
  signer->key_ = std::move(key);
  signer->key_id_ = Base64UrlEncode(
      std::string_view(reinterpret_cast<char*>(digest), sizeof(digest)));
  return std::shared_ptr<const JwtSigner>(std::move(signer));
}

Result<std::string> JwtSigner::Sign(const json& claims) const {
  std::string input =
      Base64UrlEncode(Header(key_id_)) + "." + Base64UrlEncode(claims.dump());
  UniqueMdCtx ctx(EVP_MD_CTX_new());
  size_t der_len = 0;
  if (!ctx ||
      EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr,
                         key_.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &der_len,
                     reinterpret_cast<const unsigned char*>(input.data()),
                     input.size()) != 1) {
    return InternalError("cannot sign a token: " + OpenSslErrors());
  }
  std::string der(der_len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(der.data()),
                     &der_len,
                     reinterpret_cast<const unsigned char*>(input.data()),
                     input.size()) != 1) {
    return InternalError("cannot sign a token: " + OpenSslErrors());
  }
  // JWS wants r||s, each 32 bytes, where OpenSSL gives DER.
  const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
  UniqueEcdsaSig sig(d2i_ECDSA_SIG(nullptr, &p, long(der_len)));
  if (!sig) return InternalError("cannot decode a signature");
  std::string raw(2 * kCoordinate, '\0');
  const BIGNUM* r = ECDSA_SIG_get0_r(sig.get());
  const BIGNUM* s = ECDSA_SIG_get0_s(sig.get());
  if (BN_bn2binpad(r, reinterpret_cast<unsigned char*>(raw.data()),
                   kCoordinate) != int(kCoordinate) ||
      BN_bn2binpad(s,
                   reinterpret_cast<unsigned char*>(raw.data()) + kCoordinate,
                   kCoordinate) != int(kCoordinate)) {
    return InternalError("cannot encode a signature");
  }
  return input + "." + Base64UrlEncode(raw);
}

Result<json> JwtSigner::Verify(std::string_view token) const {
  size_t first = token.find('.');
  size_t second =
      first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos ||
      token.find('.', second + 1) != std::string_view::npos) {
    return Unauthorized("not a signed token");
  }
  std::optional<std::string> header = Base64UrlDecode(token.substr(0, first));
  std::optional<std::string> claims =
      Base64UrlDecode(token.substr(first + 1, second - first - 1));
  std::optional<std::string> raw = Base64UrlDecode(token.substr(second + 1));
  if (!header || !claims || !raw || raw->size() != 2 * kCoordinate) {
    return Unauthorized("malformed token");
  }
  json h = json::parse(*header, nullptr, false);
  if (!h.is_object() || h.value("alg", "") != "ES256" ||
      h.value("kid", "") != key_id_) {
    return Unauthorized("token not signed by this server");
  }
  UniqueEcdsaSig sig(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(reinterpret_cast<const unsigned char*>(raw->data()),
                        kCoordinate, nullptr);
  BIGNUM* s = BN_bin2bn(
      reinterpret_cast<const unsigned char*>(raw->data()) + kCoordinate,
      kCoordinate, nullptr);
  if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return InternalError("cannot decode a signature");
  }
  unsigned char* der = nullptr;
  int der_len = i2d_ECDSA_SIG(sig.get(), &der);
  if (der_len <= 0) return InternalError("cannot encode a signature");
  std::string_view input = token.substr(0, second);
  UniqueMdCtx ctx(EVP_MD_CTX_new());
  bool good =
      ctx &&
      EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr,
                           key_.get()) == 1 &&
      EVP_DigestVerify(ctx.get(), der, size_t(der_len),
                       reinterpret_cast<const unsigned char*>(input.data()),
                       input.size()) == 1;
  OPENSSL_free(der);
  if (!good) {
    OpenSslErrors();  // drain the queue
    return Unauthorized("bad token signature");
  }
  json c = json::parse(*claims, nullptr, false);
  if (!c.is_object()) return Unauthorized("malformed token claims");
  return c;
}

}  // namespace kmock::certs
