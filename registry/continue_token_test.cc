#include "registry/continue_token.h"

#include <gtest/gtest.h>

namespace kmock::registry {
namespace {

TEST(ContinueTokenTest, RoundTrips) {
  std::string tok = EncodeContinue({42, std::string("default/pod-5\0", 14)});
  auto back = DecodeContinue(tok);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->revision, 42);
  EXPECT_EQ(back->start, std::string("default/pod-5\0", 14));
  EXPECT_EQ(tok.find('='), std::string::npos);
}

TEST(ContinueTokenTest, GarbageIsBadRequest) {
  for (const char* bad : {"!!!", "bm90IGpzb24", "eyJ2IjoieCJ9"}) {
    auto r = DecodeContinue(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
    EXPECT_EQ(r.status().message().rfind("invalid continue token", 0), 0u);
  }
}

TEST(ContinueTokenTest, GarbageGetsKubeApiserversCause) {
  struct Case {
    const char* token;
    const char* cause;
  } cases[] = {
      // "garbage" decodes to 0x81 0xaa ...: not a JSON value.
      {"garbage", "invalid character '\\u0081' looking for beginning of value"},
      {"a=", "illegal base64 data at input byte 1"},
      {"ab+c", "illegal base64 data at input byte 2"},
      {"abcde", "illegal base64 data at input byte 4"},
      {"", "unexpected end of JSON input"},
      {"IHg", "invalid character 'x' looking for beginning of value"},  // " x"
      {"WzFd",
       "json: cannot unmarshal array into Go value of type "
       "storage.continueToken"},  // [1]
      {"bnVsbA",
       "incorrect encoded start resourceVersion (version "
       "meta.k8s.io/v1)"},  // null
  };
  for (const Case& c : cases) {
    auto r = DecodeContinue(c.token);
    ASSERT_FALSE(r.ok()) << c.token;
    EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
    EXPECT_EQ(r.status().message(),
              std::string("invalid continue token: continue key is not "
                          "valid: ") +
                  c.cause)
        << c.token;
  }
}

TEST(Base64Test, KnownVectors) {
  EXPECT_EQ(Base64UrlEncode("f"), "Zg");
  EXPECT_EQ(Base64UrlEncode("fo"), "Zm8");
  EXPECT_EQ(Base64UrlEncode("foo"), "Zm9v");
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
  std::string out;
  ASSERT_TRUE(Base64UrlDecode("-_8", &out));
  EXPECT_EQ(out, "\xfb\xff");
}

}  // namespace
}  // namespace kmock::registry
