// Go's StdEncoding: what decodes, and the byte offset of each failure.
#include "common/go_base64.h"

#include <gtest/gtest.h>

namespace kmock {
namespace {

std::string Decode(std::string_view text) {
  size_t at = 0;
  auto out = GoBase64Decode(text, &at);
  return out ? "ok:" + *out : "err:" + std::to_string(at);
}

TEST(GoBase64, DecodesPaddedInputAndSkipsNewlines) {
  EXPECT_EQ(Decode(""), "ok:");
  EXPECT_EQ(Decode("YQ=="), "ok:a");
  EXPECT_EQ(Decode("YWI="), "ok:ab");
  EXPECT_EQ(Decode("YWJj"), "ok:abc");
  EXPECT_EQ(Decode("YW\nJj\r\n"), "ok:abc");
  EXPECT_EQ(Decode("czNjcmV0"), "ok:s3cret");
}

TEST(GoBase64, FailsWhereGoFails) {
  EXPECT_EQ(Decode("not base64!"), "err:3");
  EXPECT_EQ(Decode("YQ"), "err:0");  // unpadded last quantum
  EXPECT_EQ(Decode("YWJjZA"), "err:4");
  EXPECT_EQ(Decode("YQ="), "err:3");  // second '=' missing
  EXPECT_EQ(Decode("YQ=x"), "err:2");
  EXPECT_EQ(Decode("YQ==x"), "err:4");  // data after the padding
  EXPECT_EQ(Decode("Y==="), "err:1");   // padding too early
  EXPECT_EQ(Decode("=YWJ"), "err:0");
  EXPECT_EQ(Decode("YW-j"), "err:2");  // URL alphabet is not standard
  EXPECT_EQ(GoBase64ErrorText(3), "illegal base64 data at input byte 3");
}

TEST(GoBase64, EncodesWithPaddingAndRoundTrips) {
  EXPECT_EQ(GoBase64Encode(""), "");
  EXPECT_EQ(GoBase64Encode("a"), "YQ==");
  EXPECT_EQ(GoBase64Encode("ab"), "YWI=");
  EXPECT_EQ(GoBase64Encode("s3cret"), "czNjcmV0");
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(char(c));
  EXPECT_EQ(Decode(GoBase64Encode(all)), "ok:" + all);
}

}  // namespace
}  // namespace kmock
