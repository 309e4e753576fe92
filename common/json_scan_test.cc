#include "common/json_scan.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace kmock {
namespace {

using nlohmann::json;

TEST(TopLevelMemberTest, FindsTheValueAfterSkippingEveryKindOfValue) {
  std::string text =
      R"({"a":"x\"}{[","b":[1,{"c":"]"}],"n":-1.5e3,"t":true,"z":null,)"
      R"( "o" : {"k":{"k2":[[]]}} ,"metadata":{"name":"p","labels":{"x":"}"}},)"
      R"("spec":{"metadata":"not this"}})";
  auto md = TopLevelMember(text, "metadata");
  ASSERT_TRUE(md.has_value());
  EXPECT_EQ(json::parse(*md),
            json::parse(R"({"name":"p","labels":{"x":"}"}})"));
  EXPECT_EQ(*TopLevelMember(text, "n"), "-1.5e3");
  EXPECT_EQ(*TopLevelMember(text, "t"), "true");
  EXPECT_EQ(*TopLevelMember(text, "z"), "null");
  EXPECT_EQ(*TopLevelMember(text, "a"), R"("x\"}{[")");
  EXPECT_EQ(json::parse(*TopLevelMember(text, "o")),
            json::parse(R"({"k":{"k2":[[]]}})"));
}

TEST(TopLevelMemberTest, OnlyTopLevelKeysMatch) {
  EXPECT_FALSE(TopLevelMember(R"({"spec":{"metadata":{}}})", "metadata"));
  EXPECT_FALSE(TopLevelMember(R"({"x":"\"metadata\":{}"})", "metadata"));
  EXPECT_EQ(*TopLevelMember(R"({"metadata":1,"metadata":2})", "metadata"), "1");
}

TEST(TopLevelMemberTest, AgreesWithTheParserOnDumpedObjects) {
  json obj = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", "web-0"},
                {"annotations", {{"note", "a \"quoted\" {brace} \\ \n"}}},
                {"ownerReferences", json::array({{{"uid", "u1"}}})}}},
              {"spec", {{"containers", json::array({{{"name", "c"}}})}}},
              {"status", {{"phase", "Running"}, {"ratio", 0.25}}}};
  for (int indent : {-1, 2}) {
    std::string text = obj.dump(indent);
    for (const auto& [k, v] : obj.items()) {
      auto got = TopLevelMember(text, k);
      ASSERT_TRUE(got.has_value()) << k << " in " << text;
      EXPECT_EQ(json::parse(*got), v) << k;
    }
  }
}

TEST(TopLevelMemberTest, RejectsWhatIsNotAnObjectOrIsCutShort) {
  for (std::string bad :
       {"", "[]", "\"metadata\"", "{", R"({"metadata")", R"({"metadata":)",
        R"({"metadata":{"a":1)", R"({"a":"unterminated)", R"({"a":1 "b":2})",
        R"({"a":,"metadata":{}})", R"({metadata:{}})"}) {
    EXPECT_FALSE(TopLevelMember(bad, "metadata").has_value()) << bad;
  }
  EXPECT_FALSE(TopLevelMember("{}", "metadata").has_value());
}

}  // namespace
}  // namespace kmock
