#include "server/query_params.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace kmock::server {
namespace {

std::vector<std::pair<std::string, std::string>> Pairs(std::string_view q) {
  httplib::Params p = ParseQuery(q);
  return {p.begin(), p.end()};
}

using P = std::vector<std::pair<std::string, std::string>>;

TEST(QueryParams, SplitsEachPairAtItsFirstEquals) {
  // As scripts and curl users write a selector, unescaped.
  EXPECT_EQ(Pairs("labelSelector=a=1"), (P{{"labelSelector", "a=1"}}));
  EXPECT_EQ(Pairs("fieldSelector=status.phase=Running,spec.nodeName=n1"),
            (P{{"fieldSelector", "status.phase=Running,spec.nodeName=n1"}}));
  EXPECT_EQ(Pairs("labelSelector=a%3D1"), (P{{"labelSelector", "a=1"}}));
}

TEST(QueryParams, UnescapesAsGoDoes) {
  EXPECT_EQ(Pairs("a=x+y&b=%41%2b"), (P{{"a", "x y"}, {"b", "A+"}}));
  EXPECT_EQ(Pairs("k%20ey=v"), (P{{"k ey", "v"}}));
  // A malformed escape drops its pair only.
  EXPECT_EQ(Pairs("a=%zz&b=1&c=%4"), (P{{"b", "1"}}));
  EXPECT_EQ(QueryUnescape("%"), std::nullopt);
}

TEST(QueryParams, KeepsRepeatedValuesInOrderAndSkipsEmptyPairs) {
  EXPECT_EQ(Pairs("dryRun=All&&dryRun=All&x"),
            (P{{"dryRun", "All"}, {"dryRun", "All"}, {"x", ""}}));
  httplib::Params p = ParseQuery("v=1&w=2&v=3");
  auto range = p.equal_range("v");
  std::vector<std::string> vs;
  for (auto it = range.first; it != range.second; ++it)
    vs.push_back(it->second);
  EXPECT_EQ(vs, (std::vector<std::string>{"1", "3"}));
}

TEST(QueryParams, DropsPairsWithSemicolons) {
  // Go 1.17 and later no longer split at ';' and drop such pairs.
  EXPECT_EQ(Pairs("a=1;b=2&c=3"), (P{{"c", "3"}}));
}

TEST(QueryParams, RawQueryOfTarget) {
  EXPECT_EQ(RawQueryOf("/api/v1/pods?watch=1&x=y#frag"), "watch=1&x=y");
  EXPECT_EQ(RawQueryOf("/api/v1/pods"), "");
  EXPECT_EQ(RawQueryOf("/api?"), "");
}

}  // namespace
}  // namespace kmock::server
