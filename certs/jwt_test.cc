// ES256 tokens: what one signer signs it verifies; another key, a changed
// claim, a malformed token or another algorithm fail with 401.
#include "certs/jwt.h"

#include <gtest/gtest.h>

namespace kmock::certs {
namespace {

using nlohmann::json;

std::shared_ptr<const JwtSigner> NewSigner() {
  auto key = GenerateEcKey();
  EXPECT_TRUE(key.ok());
  auto signer = JwtSigner::FromPrivateKeyPem(PrivateKeyToPem(key->get()));
  EXPECT_TRUE(signer.ok()) << signer.status().ToString();
  return *signer;
}

TEST(Jwt, Base64UrlRoundTrips) {
  for (std::string s : {"", "a", "ab", "abc", "\xff\xfe\xfd\x00"}) {
    EXPECT_EQ(Base64UrlDecode(Base64UrlEncode(s)), s);
  }
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
  EXPECT_FALSE(Base64UrlDecode("a+b=").has_value());
}

TEST(Jwt, SignsAndVerifies) {
  auto signer = NewSigner();
  json claims = {{"sub", "system:serviceaccount:default:default"},
                 {"exp", 1800000000}};
  auto token = signer->Sign(claims);
  ASSERT_TRUE(token.ok()) << token.status().ToString();
  auto header = Base64UrlDecode(token->substr(0, token->find('.')));
  ASSERT_TRUE(header.has_value());
  EXPECT_EQ(json::parse(*header),
            json({{"alg", "ES256"}, {"kid", signer->key_id()}}));
  auto back = signer->Verify(*token);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, claims);
}

TEST(Jwt, RefusesOtherKeysTamperingAndJunk) {
  auto signer = NewSigner();
  auto other = NewSigner();
  auto token = signer->Sign({{"sub", "a"}});
  ASSERT_TRUE(token.ok());
  EXPECT_EQ(other->Verify(*token).status().code(), StatusCode::kUnauthorized);

  std::string tampered = *token;
  size_t dot = tampered.find('.');
  std::string forged = Base64UrlEncode(json({{"sub", "b"}}).dump());
  tampered = tampered.substr(0, dot + 1) + forged +
             tampered.substr(tampered.rfind('.'));
  EXPECT_EQ(signer->Verify(tampered).status().code(),
            StatusCode::kUnauthorized);

  for (const char* junk :
       {"", "abc", "a.b", "a.b.c.d", "....", "e30.e30.e30"}) {
    EXPECT_EQ(signer->Verify(junk).status().code(), StatusCode::kUnauthorized)
        << junk;
  }
  std::string none = Base64UrlEncode(R"({"alg":"none"})") + "." +
                     Base64UrlEncode(R"({"sub":"a"})") + ".";
  EXPECT_EQ(signer->Verify(none).status().code(), StatusCode::kUnauthorized);
}

}  // namespace
}  // namespace kmock::certs
