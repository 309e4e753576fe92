#include "patch/go_format.h"

#include <gtest/gtest.h>

namespace kmock::patch {
namespace {

using json = nlohmann::json;

TEST(GoFormat, ValueLikeFmtV) {
  EXPECT_EQ(GoValue(json::parse(
                R"({"name":"x","$patch":"delete","n":[1,2.5,true,null]})")),
            "map[$patch:delete n:[1 2.5 true <nil>] name:x]");
  EXPECT_EQ(GoValue(json(1e21)), "1e+21");
  EXPECT_EQ(GoValue(json(123456.0)), "123456");
  EXPECT_EQ(GoValue(json(0.00001)), "1e-05");
  EXPECT_EQ(GoValue(json(-3)), "-3");
}

TEST(GoFormat, StringVerbAndTypes) {
  EXPECT_EQ(GoStringVerb(json("merge")), "merge");
  EXPECT_EQ(GoStringVerb(json(5)), "%!s(int64=5)");
  EXPECT_EQ(GoStringVerb(json(nullptr)), "%!s(<nil>)");
  EXPECT_EQ(GoTypeName(json::object()), "map[string]interface {}");
  EXPECT_EQ(GoTypeName(json::array()), "[]interface {}");
  EXPECT_EQ(GoTypeName(json(1.5)), "float64");
  EXPECT_EQ(GoJsonKind(json(true)), "bool");
  EXPECT_EQ(GoQuote("a\"b\n"), "\"a\\\"b\\n\"");
}

}  // namespace
}  // namespace kmock::patch
