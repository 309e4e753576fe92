#include "server/authn.h"

#include <gtest/gtest.h>

namespace kmock::server {
namespace {

TEST(BearerToken, ReadsTheHeaderAsKubeApiserverDoes) {
  EXPECT_EQ(BearerToken("Bearer abc"), "abc");
  EXPECT_EQ(BearerToken("bearer abc"), "abc");
  EXPECT_EQ(BearerToken("BEARER abc"), "abc");
  // The header is trimmed first, so spaces around it do not matter.
  EXPECT_EQ(BearerToken("  Bearer abc \t"), "abc");
  EXPECT_EQ(BearerToken("\tBearer abc  "), "abc");
  // Only the part after the first space counts: a second space ends it.
  EXPECT_EQ(BearerToken("Bearer abc def"), "abc");
}

TEST(BearerToken, SpacesBeforeTheTokenMeanNoToken) {
  EXPECT_EQ(BearerToken("Bearer  abc"), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer "), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer"), std::nullopt);
  EXPECT_EQ(BearerToken("Basic abc"), std::nullopt);
  EXPECT_EQ(BearerToken("Bearerx abc"), std::nullopt);
}

TEST(Authenticator, PaddedTokenIsNotAccepted) {
  registry::UserInfo admin;
  admin.name = "admin";
  Authenticator authn({TokenUser{"secret", admin}});
  auto ok = authn.Authenticate(nullptr, "Bearer secret");
  ASSERT_TRUE(ok.ok());
  ASSERT_TRUE(ok->has_value());
  EXPECT_EQ((*ok)->name, "admin");
  // Trailing spaces are trimmed with the header, as by kube-apiserver.
  EXPECT_TRUE(authn.Authenticate(nullptr, "Bearer secret  ").ok());
  // A token that is not the one configured is a failed login...
  EXPECT_EQ(authn.Authenticate(nullptr, "Bearer secret2").status().code(),
            StatusCode::kUnauthorized);
  EXPECT_EQ(authn.Authenticate(nullptr, "Bearer secretsecret").status().code(),
            StatusCode::kUnauthorized);
  // ...and spaces before it leave no token: an anonymous request.
  auto padded = authn.Authenticate(nullptr, "Bearer   secret");
  ASSERT_TRUE(padded.ok());
  EXPECT_FALSE(padded->has_value());
}

}  // namespace
}  // namespace kmock::server
