#include "server/yaml_json.h"

#include <gtest/gtest.h>

#include <string>

namespace kmock::server {
namespace {

TEST(YamlToJsonTest, AliasesWithinReasonExpand) {
  auto j = YamlToJson("env: &env\n- name: A\n  value: \"1\"\nother: *env\n");
  ASSERT_TRUE(j.ok()) << j.status().message();
  EXPECT_EQ((*j)["other"], (*j)["env"]);
  EXPECT_EQ((*j)["other"][0]["value"], "1");
}

// "Billion laughs": nine levels of nine aliases, a few hundred bytes that
// would expand to 9^9 values; refused instead of eating the server's memory.
TEST(YamlToJsonTest, ExcessiveAliasingIsRefused) {
  std::string doc = "a: &a [x, x, x, x, x, x, x, x, x]\n";
  std::string prev = "a";
  for (char c = 'b'; c <= 'i'; ++c) {
    doc += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 9; ++i) doc += (i ? ", *" : "*") + prev;
    doc += "]\n";
    prev = std::string(1, c);
  }
  auto j = YamlToJson(doc);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kBadRequest);
  EXPECT_NE(j.status().message().find("excessive aliasing"), std::string::npos)
      << j.status().message();
}

// Found by tests/fuzz: bytes that are not UTF-8 passed through into JSON
// strings, and the first dump() of the object threw.
TEST(YamlToJsonTest, InvalidUtf8IsABadRequest) {
  for (std::string doc :
       {std::string("restartPolicy: \xc1lways\n"), std::string("\xff: x\n"),
        std::string("a: \"\\uD800\"\n")}) {
    auto j = YamlToJson(doc);
    ASSERT_FALSE(j.ok()) << doc;
    EXPECT_EQ(j.status().code(), StatusCode::kBadRequest);
  }
  auto ok = YamlToJson("name: \"caf\xc3\xa9 \\u00e9\"\n");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)["name"], "caf\xc3\xa9 \xc3\xa9");
}

}  // namespace
}  // namespace kmock::server
