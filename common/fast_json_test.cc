#include "common/fast_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kmock {
namespace {

using nlohmann::json;

// Equal values of equal types all the way down (== alone lets an unsigned
// 5 equal a signed 5).
void ExpectSameTree(const json& a, const json& b, const std::string& where) {
  ASSERT_EQ(a.type(), b.type()) << where;
  if (a.is_object()) {
    ASSERT_EQ(a.size(), b.size()) << where;
    for (auto it = a.begin(); it != a.end(); ++it) {
      ASSERT_TRUE(b.contains(it.key())) << where << "." << it.key();
      ExpectSameTree(*it, b.at(it.key()), where + "." + it.key());
    }
  } else if (a.is_array()) {
    ASSERT_EQ(a.size(), b.size()) << where;
    for (size_t i = 0; i < a.size(); ++i) {
      ExpectSameTree(a[i], b[i], where + "[" + std::to_string(i) + "]");
    }
  } else {
    ASSERT_EQ(a, b) << where;
  }
}

TEST(ParseJsonTest, GivesWhatNlohmannGives) {
  std::vector<std::string> texts = {
      R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p",)"
      R"("labels":{"app":"web"},"creationTimestamp":"2026-12-01T10:00:00Z"},)"
      R"("spec":{"containers":[{"name":"c","image":"nginx:1.25",)"
      R"("ports":[{"containerPort":80,"protocol":"TCP"}]}],)"
      R"("terminationGracePeriodSeconds":30},"status":{"phase":"Running"}})",
      R"([0,1,-1,9223372036854775807,-9223372036854775808,)"
      R"(9223372036854775808,18446744073709551615,1.5,-0.0,1e300,2.5E-3])",
      R"({"b":1,"a":2,"b":3})",  // duplicate keys: the last wins
      R"({"s":"line\nbreak \"quoted\" \\ \/ \u00e9 \ud83d\ude00 \u0000 é"})",
      R"({"empty":{},"list":[],"n":null,"t":true,"f":false})",
      R"("just a string")",
      "42",
      "  [ 1 , 2 ]  ",
      // Left to nlohmann: beyond 64 bits, nested past 1024.
      "18446744073709551616",
      std::string(1500, '[') + std::string(1500, ']'),
  };
  for (const std::string& text : texts) {
    json want = json::parse(text, nullptr, false);
    json got = ParseJson(text);
    ASSERT_FALSE(want.is_discarded()) << text.substr(0, 80);
    ExpectSameTree(got, want, text.substr(0, 80));
  }
}

TEST(ParseJsonTest, RejectsWhatNlohmannRejects) {
  for (const std::string& text :
       {std::string(), std::string("{"), std::string(R"({"a":})"),
        std::string("[1,]"), std::string("{\"a\":\"\xff\"}"),
        std::string(R"({"a":1} x)"), std::string("nul"),
        std::string("1e400")}) {
    EXPECT_TRUE(ParseJson(text).is_discarded()) << text;
  }
}

}  // namespace
}  // namespace kmock
