// Request bodies nested deeper than Go's decoder allows are refused while
// parsing, before any recursive code (copies, dumps, schema walks) can
// overflow the stack on them.
#include <gtest/gtest.h>

#include <string>

#include "server/negotiation.h"

namespace kmock::server {
namespace {

std::string Nested(size_t depth) {
  return "{\"kind\":\"Pod\",\"spec\":{\"foo\":" + std::string(depth, '[') +
         std::string(depth, ']') + "}}";
}

TEST(DecodeDepthTest, TenThousandLevelsAreAccepted) {
  // The object and spec take two levels of Go's 10000.
  auto j = DecodeBody("application/json", Nested(9998));
  ASSERT_TRUE(j.ok()) << j.status().message();
  EXPECT_EQ((*j)["kind"], "Pod");
}

TEST(DecodeDepthTest, DeeperBodiesAreABadRequest) {
  for (size_t depth : {9999u, 1000000u}) {
    auto j = DecodeBody("application/json", Nested(depth));
    ASSERT_FALSE(j.ok()) << depth;
    EXPECT_EQ(j.status().code(), StatusCode::kBadRequest);
    EXPECT_NE(
        j.status().message().find("invalid character '[' exceeded max depth"),
        std::string::npos)
        << j.status().message();
  }
}

}  // namespace
}  // namespace kmock::server
