#include "registry/selectors.h"

#include <gtest/gtest.h>

#include <vector>

namespace kmock::registry {
namespace {

using nlohmann::json;

TEST(LabelSelectorTest, EqualityAndSetBased) {
  auto s =
      LabelSelector::Parse("app=web, tier!=db,env in (prod,qa),!legacy,team");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->Matches(json{{"app", "web"}, {"env", "qa"}, {"team", "x"}}));
  EXPECT_FALSE(s->Matches(json{{"app", "web"}, {"env", "dev"}, {"team", "x"}}));
  EXPECT_FALSE(s->Matches(
      json{{"app", "web"}, {"env", "qa"}, {"team", "x"}, {"legacy", "1"}}));
  EXPECT_FALSE(s->Matches(json{{"app", "web"}, {"env", "qa"}}));
  EXPECT_FALSE(s->Matches(
      json{{"app", "web"}, {"env", "qa"}, {"team", "x"}, {"tier", "db"}}));
  EXPECT_EQ(s->ToString(), "app=web,tier!=db,env in (prod,qa),!legacy,team");
}

TEST(LabelSelectorTest, NotInAndNotEqualsMatchMissingKeys) {
  auto s = LabelSelector::Parse("env notin (dev),tier!=db");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->Matches(json::object()));
  EXPECT_TRUE(s->Matches(nullptr));
}

TEST(LabelSelectorTest, EmptySelectsEverything) {
  auto s = LabelSelector::Parse("");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->Empty());
  EXPECT_TRUE(s->Matches(nullptr));
}

TEST(LabelSelectorTest, GreaterAndLess) {
  auto s = LabelSelector::Parse("rank>2,rank<10");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->Matches(json{{"rank", "5"}}));
  EXPECT_FALSE(s->Matches(json{{"rank", "1"}}));
  EXPECT_FALSE(s->Matches(json{{"rank", "x"}}));
}

TEST(LabelSelectorTest, RejectsBadSyntaxAsBadRequest) {
  for (const char* bad :
       {"app=", "=x", "env in prod", "env in (a b)", "a=b=c", "app==web!"}) {
    auto s = LabelSelector::Parse(bad);
    if (std::string(bad) == "app=") {
      // "app=" is an empty value, which kube accepts.
      EXPECT_TRUE(s.ok()) << bad;
      continue;
    }
    EXPECT_FALSE(s.ok()) << bad;
    if (!s.ok()) {
      EXPECT_EQ(s.status().code(), StatusCode::kBadRequest) << bad;
    }
  }
}

TEST(LabelSelectorTest, FromJson) {
  auto s = LabelSelector::FromJson(json::parse(
      R"({"matchLabels":{"app":"web"},"matchExpressions":[{"key":"env","operator":"In","values":["a"]}]})"));
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->Matches(json{{"app", "web"}, {"env", "a"}}));
  EXPECT_FALSE(s->Matches(json{{"app", "web"}}));
  auto none = LabelSelector::FromJson(nullptr);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->Matches(json{{"app", "web"}}));
}

TEST(FieldSelectorTest, ParsesAndMatches) {
  auto s = FieldSelector::Parse("spec.nodeName=worker-1,status.phase!=Running");
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->requirements().size(), 2u);
  auto values = [](const std::string& f) {
    return f == "spec.nodeName" ? std::string("worker-1")
                                : std::string("Pending");
  };
  EXPECT_TRUE(s->Matches(values));
  EXPECT_EQ(*s->RequiredValue("spec.nodeName"), "worker-1");
  EXPECT_EQ(s->RequiredValue("status.phase"), nullptr);
}

TEST(FieldSelectorTest, EscapesAndDoubleEquals) {
  auto s = FieldSelector::Parse(R"(metadata.name==a\,b)");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->requirements()[0].value, "a,b");
  EXPECT_FALSE(FieldSelector::Parse("metadata.name").ok());
}

// Found by tests/fuzz: members of the wrong JSON type used to throw out of
// FromJson (nlohmann's value() on a non-string or a non-object).
TEST(LabelSelectorTest, FromJsonWithWrongTypesIsAnError) {
  for (const char* text :
       {R"({"matchExpressions":[{"key":["fe","be"],"operator":"In"}]})",
        R"({"matchExpressions":[{"key":"a","operator":7}]})",
        R"({"matchExpressions":["app"]})"}) {
    auto s = LabelSelector::FromJson(json::parse(text));
    EXPECT_FALSE(s.ok()) << text;
  }
}

// Found by tests/fuzz: a selector object with a key the string syntax
// cannot spell ("a`p") was taken, and its canonical string did not parse
// back. As metav1.LabelSelectorAsSelector, keys must be qualified names,
// values label values, and only In/NotIn take (some) values.
TEST(LabelSelectorTest, FromJsonChecksKeysAndValuesAsKubernetesDoes) {
  struct Case {
    const char* selector;
    const char* error;
  };
  for (
      const Case& c : std::vector<Case>{
          {R"({"matchLabels":{"a`p":"web"}})",
           "key: Invalid value: \"a`p\": name part must consist of"},
          {R"({"matchLabels":{"app":"we b"}})",
           "values[0]: Invalid value: \"we b\": a valid label must be"},
          {R"({"matchExpressions":[{"key":"tier","operator":"In","values":[]}]})",
           "values: Invalid value: []string{}: for 'in', 'notin' operators, "
           "values set can't be empty"},
          {R"({"matchExpressions":[{"key":"tier","operator":"Exists","values":["x"]}]})",
           "values set must be empty for exists and does not exist"},
      }) {
    auto s = LabelSelector::FromJson(json::parse(c.selector));
    ASSERT_FALSE(s.ok()) << c.selector;
    EXPECT_NE(s.status().message().find(c.error), std::string::npos)
        << s.status().message();
  }
  auto ok = LabelSelector::FromJson(json::parse(
      R"({"matchLabels":{"example.com/app":"web"},"matchExpressions":[{"key":"tier","operator":"NotIn","values":["db",""]}]})"));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  auto again = LabelSelector::Parse(ok->ToString());
  ASSERT_TRUE(again.ok()) << ok->ToString();
  EXPECT_EQ(again->ToString(), ok->ToString());
}

}  // namespace
}  // namespace kmock::registry
