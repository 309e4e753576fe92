#include "common/json_scan.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

TEST(TopLevelMemberTest, EndsStringsAtTheFirstUnescapedQuote) {
  // Runs of backslashes before a quote: even ones end the string.
  for (std::string s :
       {std::string(R"(\\\\)"), std::string(R"(a\\)"), std::string(R"(\"\\\")"),
        std::string(R"(\\\\\\)"), std::string(R"(x\\\"\\)"), std::string("")}) {
    std::string text = R"({"a":")" + s + R"(","b":1})";
    nlohmann::json parsed = nlohmann::json::parse(text);
    auto b = TopLevelMember(text, "b");
    ASSERT_TRUE(b.has_value()) << text;
    EXPECT_EQ(*b, "1") << text;
    auto a = TopLevelMember(text, "a");
    ASSERT_TRUE(a.has_value()) << text;
    EXPECT_EQ(nlohmann::json::parse(*a), parsed["a"]) << text;
  }
  // An escaped quote at the very end: the string never closes.
  EXPECT_FALSE(TopLevelMember(R"({"a":"x\"})", "a").has_value());
}

TEST(ObjectWithoutMemberTest, CopiesEveryOtherMemberAsItIs) {
  std::string text =
      R"({"name":"p", "managedFields":[{"f:x":{}}],"labels":{"a":"}"}})";
  auto out = ObjectWithoutMember(text, "managedFields");
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(*out, R"({"name":"p","labels":{"a":"}"}})");
  EXPECT_EQ(*ObjectWithoutMember(R"({"managedFields":[]})", "managedFields"),
            "{}");
  EXPECT_EQ(ObjectWithoutMember(R"({"name":"p",)", "managedFields"),
            std::nullopt);
  std::string first = "{";
  AppendMemberText("a", "1", &first);
  AppendMemberText("b", R"("x")", &first);
  EXPECT_EQ(first, R"({"a":1,"b":"x")");
}

TEST(ForEachTopLevelMemberTest, PassesEveryMemberInOrderUntilTold) {
  std::vector<std::string> seen;
  auto collect = [&](std::string_view k, std::string_view v) {
    seen.push_back(std::string(k) + "=" + std::string(v));
    return true;
  };
  EXPECT_TRUE(ForEachTopLevelMember(
      R"( { "a" : 1, "b":{"c":[1,"}"]} ,"d":"x\"y" } )", collect));
  EXPECT_EQ(seen, (std::vector<std::string>{"a=1", R"(b={"c":[1,"}"]})",
                                            R"(d="x\"y")"}));
  seen.clear();
  EXPECT_TRUE(ForEachTopLevelMember("{}", collect));
  EXPECT_TRUE(seen.empty());
  int calls = 0;
  EXPECT_TRUE(ForEachTopLevelMember(
      R"({"a":1,"b":2,"c":3})",
      [&](std::string_view, std::string_view) { return ++calls < 2; }));
  EXPECT_EQ(calls, 2);
  seen.clear();
  EXPECT_FALSE(ForEachTopLevelMember(R"({"a":1,"b":)", collect));
  EXPECT_EQ(seen, (std::vector<std::string>{"a=1"}));
  EXPECT_FALSE(ForEachTopLevelMember(R"({"a":1 "b":2})", collect));
  EXPECT_FALSE(ForEachTopLevelMember("[1]", collect));
}

}  // namespace
}  // namespace kmock
