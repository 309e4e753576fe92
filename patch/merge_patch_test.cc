#include "patch/merge_patch.h"

#include <gtest/gtest.h>

#include "patch/patch_status.h"

namespace kmock::patch {
namespace {

using json = nlohmann::json;

json J(const char* text) { return json::parse(text); }

struct MergeCase {
  const char* original;
  const char* patch;
  const char* result;
};

// RFC 7386 appendix A (cases whose patch is an object; the apiserver
// refuses non-object patches, see below), plus the library's null pruning.
TEST(MergePatch, RfcAppendixTable) {
  const MergeCase cases[] = {
      {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
      {R"({"a":"b"})", R"({"a":null})", R"({})"},
      {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
      {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
      {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})",
       R"({"a":{"b":"d"}})"},
      {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
      {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
      {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
      // Original not an object: the result is the patch, nulls dropped.
      {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
  };
  for (const MergeCase& c : cases) {
    Result<json> r = ApplyMergePatch(J(c.original), J(c.patch));
    ASSERT_TRUE(r.ok()) << c.original << " + " << c.patch;
    EXPECT_EQ(r.value(), J(c.result)) << c.original << " + " << c.patch;
  }
}

TEST(MergePatch, NestedMergeKeepsSiblings) {
  Result<json> r = ApplyMergePatch(
      J(R"({"metadata":{"labels":{"a":"1","b":"2"},"name":"x"},"spec":{"replicas":1}})"),
      J(R"({"metadata":{"labels":{"a":null,"c":"3"}},"spec":{"replicas":3}})"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(
      r.value(),
      J(R"({"metadata":{"labels":{"b":"2","c":"3"},"name":"x"},"spec":{"replicas":3}})"));
}

TEST(MergePatch, CopiedValuesLoseObjectNullsButKeepArrayNulls) {
  Result<json> r = ApplyMergePatch(
      J(R"({"x":1})"), J(R"({"a":[{"b":null,"c":1},null],"d":{"e":null}})"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value(), J(R"({"x":1,"a":[{"c":1},null],"d":{}})"));
}

TEST(MergePatch, ValueReplacingAnObjectIsCopiedAsIs) {
  Result<json> r =
      ApplyMergePatch(J(R"({"a":{"b":1}})"), J(R"({"a":[{"c":null}]})"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value(), J(R"({"a":[{"c":null}]})"));
}

TEST(MergePatch, NonObjectBodyIsBadRequest) {
  for (const char* body : {R"(["c"])", R"("bar")", "7", "true"}) {
    Result<json> r = ApplyMergePatch(J(R"({"a":"b"})"), J(body));
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  }
  Result<json> r = ApplyMergePatch(J(R"({"a":"b"})"), J(R"(["c"])"));
  EXPECT_EQ(r.status().message(),
            "error decoding patch: json: cannot unmarshal array into Go value "
            "of type map[string]interface {}");
}

TEST(MergePatch, NullBodyIsAPassedThroughError) {
  Result<json> r = ApplyMergePatch(J(R"({"a":"b"})"), J("null"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
  EXPECT_EQ(r.status().reason(), kReasonUnknown);
  EXPECT_EQ(r.status().message(), "Invalid JSON Patch");
}

TEST(MergePatch, HostileDepthIsRefused) {
  json deep = 1;
  for (int i = 0; i < 5000; ++i) {
    json next = json::object();
    next["a"] = std::move(deep);
    deep = std::move(next);
  }
  Result<json> r = ApplyMergePatch(J(R"({"a":{}})"), deep);
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
}

}  // namespace
}  // namespace kmock::patch
