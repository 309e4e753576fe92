#include "server/nesting_guard.h"

#include <gtest/gtest.h>

#include <string>

namespace kmock::server {
namespace {

bool Fits(const std::string& body, int max, size_t piece = 7) {
  NestingGuard g(max);
  for (size_t i = 0; i < body.size(); i += piece) {
    if (!g.Feed(body.data() + i, std::min(piece, body.size() - i)))
      return false;
  }
  return !g.too_deep();
}

std::string Nested(int depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(NestingGuardTest, CountsJsonNesting) {
  EXPECT_TRUE(Fits(Nested(10), 10));
  EXPECT_FALSE(Fits(Nested(11), 10));
  EXPECT_TRUE(Fits(R"({"a":{"b":[1,{"c":2}]},"d":[[]]})", 4));
  EXPECT_FALSE(Fits(R"({"a":{"b":[1,{"c":[2]}]}})", 4));
  // Siblings do not add up.
  std::string wide = "[";
  for (int i = 0; i < 1000; ++i) wide += "[[]],";
  wide += "[]]";
  EXPECT_TRUE(Fits(wide, 3));
}

TEST(NestingGuardTest, IgnoresBracketsInStringsAcrossPieces) {
  std::string s = R"({"a":"[[[[[[[[\"[[[[","b":"}}}}"})";
  for (size_t piece : {size_t(1), size_t(3), size_t(100)})
    EXPECT_TRUE(Fits(s, 1, piece)) << piece;
  // YAML: single quotes, comments.
  EXPECT_TRUE(Fits("a: '[[[[ it''s [[['\n# {{{{{{\nb: {c: 1}\n", 1));
  EXPECT_FALSE(Fits("a: {b: {c: [1]}}\n", 2));
}

TEST(NestingGuardTest, StaysTooDeepOnceItWas) {
  NestingGuard g(2);
  EXPECT_FALSE(g.Feed("[[[", 3));
  EXPECT_FALSE(g.Feed("]]]", 3));
  EXPECT_TRUE(g.too_deep());
}

}  // namespace
}  // namespace kmock::server
