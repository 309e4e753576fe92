#include "patch/json_patch.h"

#include <gtest/gtest.h>

#include <string>

#include "patch/patch_status.h"

namespace kmock::patch {
namespace {

using json = nlohmann::json;

json J(const char* text) { return json::parse(text); }

// Applies and returns the document, failing the test on error.
json MustApply(const char* doc, const char* patch) {
  Result<json> r = ApplyJsonPatch(J(doc), J(patch));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r.value() : json();
}

// The library error text for a patch that must fail.
std::string FailText(const char* doc, const char* patch) {
  json d = J(doc);
  return ApplyJsonPatchOperations(&d, J(patch));
}

// RFC 6902 appendix A, case by case.
TEST(JsonPatchRfc, AddObjectMember) {
  EXPECT_EQ(MustApply(R"({"foo":"bar"})",
                      R"([{"op":"add","path":"/baz","value":"qux"}])"),
            J(R"({"baz":"qux","foo":"bar"})"));
}

TEST(JsonPatchRfc, AddArrayElement) {
  EXPECT_EQ(MustApply(R"({"foo":["bar","baz"]})",
                      R"([{"op":"add","path":"/foo/1","value":"qux"}])"),
            J(R"({"foo":["bar","qux","baz"]})"));
}

TEST(JsonPatchRfc, RemoveObjectMember) {
  EXPECT_EQ(MustApply(R"({"baz":"qux","foo":"bar"})",
                      R"([{"op":"remove","path":"/baz"}])"),
            J(R"({"foo":"bar"})"));
}

TEST(JsonPatchRfc, RemoveArrayElement) {
  EXPECT_EQ(MustApply(R"({"foo":["bar","qux","baz"]})",
                      R"([{"op":"remove","path":"/foo/1"}])"),
            J(R"({"foo":["bar","baz"]})"));
}

TEST(JsonPatchRfc, ReplaceValue) {
  EXPECT_EQ(MustApply(R"({"baz":"qux","foo":"bar"})",
                      R"([{"op":"replace","path":"/baz","value":"boo"}])"),
            J(R"({"baz":"boo","foo":"bar"})"));
}

TEST(JsonPatchRfc, MoveValue) {
  EXPECT_EQ(
      MustApply(
          R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
          R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])"),
      J(R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"));
}

TEST(JsonPatchRfc, MoveArrayElement) {
  EXPECT_EQ(MustApply(R"({"foo":["all","grass","cows","eat"]})",
                      R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])"),
            J(R"({"foo":["all","cows","eat","grass"]})"));
}

TEST(JsonPatchRfc, TestSucceeds) {
  EXPECT_EQ(MustApply(R"({"baz":"qux","foo":["a",2,"c"]})",
                      R"([{"op":"test","path":"/baz","value":"qux"},
                          {"op":"test","path":"/foo/1","value":2}])"),
            J(R"({"baz":"qux","foo":["a",2,"c"]})"));
}

TEST(JsonPatchRfc, TestFails) {
  EXPECT_EQ(FailText(R"({"baz":"qux"})",
                     R"([{"op":"test","path":"/baz","value":"bar"}])"),
            "testing value /baz failed: test failed");
}

TEST(JsonPatchRfc, AddNestedMember) {
  EXPECT_EQ(
      MustApply(R"({"foo":"bar"})",
                R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])"),
      J(R"({"foo":"bar","child":{"grandchild":{}}})"));
}

TEST(JsonPatchRfc, IgnoresUnknownMembers) {
  EXPECT_EQ(
      MustApply(R"({"foo":"bar"})",
                R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])"),
      J(R"({"foo":"bar","baz":"qux"})"));
}

TEST(JsonPatchRfc, AddToMissingParentFails) {
  EXPECT_EQ(FailText(R"({"foo":"bar"})",
                     R"([{"op":"add","path":"/baz/bat","value":"qux"}])"),
            "add operation does not apply: doc is missing path: \"/baz/bat\": "
            "missing value");
}

TEST(JsonPatchRfc, TildeEscapeOrdering) {
  EXPECT_EQ(MustApply(R"({"/":9,"~1":10})",
                      R"([{"op":"test","path":"/~01","value":10}])"),
            J(R"({"/":9,"~1":10})"));
  EXPECT_EQ(MustApply(R"({"/":9,"~1":10})",
                      R"([{"op":"replace","path":"/~1","value":8}])"),
            J(R"({"/":8,"~1":10})"));
}

TEST(JsonPatchRfc, StringAndNumberDiffer) {
  EXPECT_EQ(FailText(R"({"/":9,"~1":10})",
                     R"([{"op":"test","path":"/~01","value":"10"}])"),
            "testing value /~01 failed: test failed");
}

TEST(JsonPatchRfc, AppendArrayValue) {
  EXPECT_EQ(
      MustApply(R"({"foo":["bar"]})",
                R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])"),
      J(R"({"foo":["bar",["abc","def"]]})"));
}

TEST(JsonPatchRfc, CopyValue) {
  EXPECT_EQ(MustApply(R"({"a":{"b":[1]}})",
                      R"([{"op":"copy","from":"/a/b","path":"/c"}])"),
            J(R"({"a":{"b":[1]},"c":[1]})"));
}

// What kube-apiserver answers.
TEST(JsonPatchStatus, BodyNotAnArrayIsBadRequest) {
  Result<json> r = ApplyJsonPatch(J(R"({"a":1})"),
                                  J(R"({"op":"add","path":"/b","value":1})"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(r.status().message(),
            "error decoding patch: json: cannot unmarshal object into Go value "
            "of type []handlers.jsonPatchOp");
}

TEST(JsonPatchStatus, NonStringPathIsBadRequest) {
  Result<json> r = ApplyJsonPatch(J(R"({"a":1})"),
                                  J(R"([{"op":"add","path":5,"value":1}])"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(
      r.status().message(),
      "error decoding patch: json: cannot unmarshal number into Go struct "
      "field jsonPatchOp.path of type string");
}

TEST(JsonPatchStatus, ElementNotAnObjectIsBadRequest) {
  Result<json> r = ApplyJsonPatch(J(R"({"a":1})"), J(R"(["x"])"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "error decoding patch: json: cannot unmarshal string into Go value "
            "of type handlers.jsonPatchOp");
}

TEST(JsonPatchStatus, FailedTestIsGeneric422) {
  Result<json> r =
      ApplyJsonPatch(J(R"({"spec":{"replicas":1}})"),
                     J(R"([{"op":"test","path":"/spec/replicas","value":2}])"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(r.status().message(), kRejectedMessage);
  EXPECT_TRUE(r.status().details().causes.empty());
}

TEST(JsonPatchStatus, UnknownOpIs422) {
  Result<json> r =
      ApplyJsonPatch(J(R"({"a":1})"), J(R"([{"op":"frob","path":"/a"}])"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(FailText(R"({"a":1})", R"([{"op":"frob","path":"/a"}])"),
            "Unexpected kind: frob");
  EXPECT_EQ(FailText(R"({"a":1})", R"([{"path":"/a"}])"),
            "Unexpected kind: unknown");
}

TEST(JsonPatchStatus, TooManyOperations) {
  json ops = json::array();
  for (int i = 0; i < 10001; ++i) {
    ops.push_back({{"op", "test"}, {"path", "/a"}, {"value", 1}});
  }
  Result<json> r = ApplyJsonPatch(J(R"({"a":1})"), ops);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kRequestEntityTooLarge);
  EXPECT_EQ(r.status().message(),
            "The allowed maximum operations in a JSON patch is 10000, got "
            "10001");
}

TEST(JsonPatchStatus, NullBodyChangesNothing) {
  EXPECT_EQ(MustApply(R"({"a":1})", "null"), J(R"({"a":1})"));
}

// The library's behaviour where RFC 6902 leaves room or differs.
TEST(JsonPatchLibrary, ReplaceOfMissingKeyAdds) {
  EXPECT_EQ(MustApply(R"({"spec":{"replicas":1}})",
                      R"([{"op":"replace","path":"/spec/nosuch","value":1}])"),
            J(R"({"spec":{"replicas":1,"nosuch":1}})"));
}

TEST(JsonPatchLibrary, ReplaceUnderMissingParentFails) {
  EXPECT_EQ(FailText(R"({"spec":{}})",
                     R"([{"op":"replace","path":"/spec/a/b","value":1}])"),
            "replace operation does not apply: doc is missing path: /spec/a/b: "
            "missing value");
  EXPECT_EQ(
      FailText(R"({"a":[1]})", R"([{"op":"replace","path":"/a/3","value":1}])"),
      "replace operation does not apply: doc is missing key: /a/3: "
      "missing value");
}

TEST(JsonPatchLibrary, RemoveMissingKeyFails) {
  EXPECT_EQ(FailText(R"({"a":{}})", R"([{"op":"remove","path":"/a/x"}])"),
            "error in remove for path: '/a/x': Unable to remove nonexistent "
            "key: x: missing value");
}

TEST(JsonPatchLibrary, ArrayBoundsAndIndices) {
  EXPECT_EQ(
      MustApply(R"({"a":[1,2]})", R"([{"op":"add","path":"/a/2","value":3}])"),
      J(R"({"a":[1,2,3]})"));
  EXPECT_EQ(
      FailText(R"({"a":[1,2]})", R"([{"op":"add","path":"/a/3","value":3}])"),
      "error in add for path: '/a/3': Unable to access invalid index: 3: "
      "invalid index referenced");
  EXPECT_EQ(FailText(R"({"a":[1,2]})", R"([{"op":"remove","path":"/a/2"}])"),
            "error in remove for path: '/a/2': Unable to access invalid index: "
            "2: invalid index referenced");
  EXPECT_EQ(
      FailText(R"({"a":[1,2]})", R"([{"op":"add","path":"/a/x","value":3}])"),
      "error in add for path: '/a/x': value was not a proper array index: "
      "'x': strconv.Atoi: parsing \"x\": invalid syntax");
  // Negative indices count from the end.
  EXPECT_EQ(
      MustApply(R"({"a":[1,2,3]})", R"([{"op":"remove","path":"/a/-1"}])"),
      J(R"({"a":[1,2]})"));
  EXPECT_EQ(
      FailText(R"({"a":[1,2]})", R"([{"op":"remove","path":"/a/-3"}])"),
      "error in remove for path: '/a/-3': Unable to access invalid index: "
      "-3: invalid index referenced");
}

TEST(JsonPatchLibrary, TestOfNullMatchesMissing) {
  EXPECT_EQ(MustApply(R"({"a":1})",
                      R"([{"op":"test","path":"/missing","value":null}])"),
            J(R"({"a":1})"));
  EXPECT_EQ(
      FailText(R"({"a":1})", R"([{"op":"test","path":"/missing","value":1}])"),
      "testing value /missing failed: test failed");
}

TEST(JsonPatchLibrary, TestObjectIgnoresExtraKeysInValue) {
  EXPECT_EQ(MustApply(R"({"a":{"x":1}})",
                      R"([{"op":"test","path":"/a","value":{"x":1,"y":2}}])"),
            J(R"({"a":{"x":1}})"));
  EXPECT_FALSE(FailText(R"({"a":{"x":1,"y":2}})",
                        R"([{"op":"test","path":"/a","value":{"x":1}}])")
                   .empty());
}

TEST(JsonPatchLibrary, MoveFromMissingKeyFails) {
  EXPECT_EQ(
      FailText(R"({"a":{}})", R"([{"op":"move","from":"/a/x","path":"/b"}])"),
      "error in move for path: 'x': Unable to remove nonexistent key: x: "
      "missing value");
}

TEST(JsonPatchLibrary, ReplaceWholeDocument) {
  EXPECT_EQ(MustApply(R"({"a":1})",
                      R"([{"op":"replace","path":"","value":{"b":2}}])"),
            J(R"({"b":2})"));
  EXPECT_EQ(FailText(R"({"a":1})", R"([{"op":"replace","path":"","value":3}])"),
            "replace operation value must be object or array: %!w(<nil>)");
}

TEST(JsonPatchLibrary, OperationsApplyInOrderAndStopAtFailure) {
  json doc = J(R"({"a":1})");
  std::string err =
      ApplyJsonPatchOperations(&doc, J(R"([{"op":"add","path":"/b","value":2},
                  {"op":"remove","path":"/zz"},
                  {"op":"add","path":"/c","value":3}])"));
  EXPECT_FALSE(err.empty());
  EXPECT_EQ(doc, J(R"({"a":1,"b":2})"));
  // The public function leaves the input untouched on failure.
  Result<json> r =
      ApplyJsonPatch(J(R"({"a":1})"), J(R"([{"op":"remove","path":"/zz"}])"));
  EXPECT_FALSE(r.ok());
}

TEST(JsonPatchRobustness, ArbitraryInputsNeverThrow) {
  const char* docs[] = {R"({"a":[1,{"b":null}],"c":{"d":"e"}})", "[]", "3",
                        "null", R"({"":{"":[]}})"};
  const char* patches[] = {
      R"([{"op":"add","path":"/a/-","value":1},{"op":"move","from":"/c","path":"/c/d"}])",
      R"([{"op":"copy","from":"/a/1/b","path":"/z"},{"op":"remove","path":"/"}])",
      R"([{"op":"replace","path":"/a/99999999999999999999","value":1}])",
      R"([{"op":"test","path":"","value":null},{"op":"add","path":"a/b","value":2}])",
      R"([null,{"op":null,"path":null},{"op":"remove","path":"/a/-9223372036854775808"}])",
      R"("x")",
      "7",
      "null",
      R"([[]])"};
  for (const char* d : docs) {
    for (const char* p : patches) {
      EXPECT_NO_THROW({
        Result<json> r = ApplyJsonPatch(J(d), J(p));
        (void)r;
      }) << d
         << " " << p;
    }
  }
  // A hostile nesting depth is refused, not recursed into.
  json deep = 1;
  for (int i = 0; i < 5000; ++i) {
    json next = json::object();
    next["a"] = std::move(deep);
    deep = std::move(next);
  }
  json ops = json::array();
  ops.push_back({{"op", "add"}, {"path", "/x"}, {"value", std::move(deep)}});
  Result<json> r = ApplyJsonPatch(J(R"({"a":1})"), ops);
  EXPECT_EQ(r.status().code(), StatusCode::kBadRequest);
}

// Nested arrays `levels` deep around 1.
json NestedArrays(int levels) {
  json v = 1;
  for (int i = 0; i < levels; ++i) v = json::array({std::move(v)});
  return v;
}

// Each copy of a value into itself doubles the document's depth: the
// inputs pass the depth check, the results would not, and the first copy
// past the limit is refused instead of growing the tree (five copies of a
// 900-deep array would reach 28,800 levels).
TEST(JsonPatchRobustness, CopiesCannotGrowDepthPastLimit) {
  json doc = {{"x", NestedArrays(450)}};
  std::string inner = "/x";
  for (int i = 0; i < 440; ++i) inner += "/0";
  json ops = json::array();
  for (int i = 0; i < 5; ++i)
    ops.push_back({{"op", "copy"}, {"from", "/x"}, {"path", inner + "/0"}});
  Result<json> r = ApplyJsonPatch(doc, ops);
  ASSERT_EQ(r.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(r.status().message(),
            "the patched object nests deeper than 1000 levels");

  // One copy that stays within the limit is carried out.
  json one = json::array();
  one.push_back({{"op", "copy"}, {"from", "/x/0"}, {"path", "/y"}});
  Result<json> ok = ApplyJsonPatch(doc, one);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)["y"], NestedArrays(449));
}

TEST(JsonPatchRobustness, AddAndReplaceCannotPassTheLimitAtDepth) {
  // A value within the limit on its own, put where the levels above it
  // take the document past the limit.
  json doc = {{"x", NestedArrays(600)}};
  std::string path = "/x";
  for (int i = 0; i < 599; ++i) path += "/0";
  for (const char* op : {"add", "replace"}) {
    json ops = json::array();
    ops.push_back(
        {{"op", op}, {"path", path + "/0"}, {"value", NestedArrays(500)}});
    Result<json> r = ApplyJsonPatch(doc, ops);
    EXPECT_EQ(r.status().code(), StatusCode::kBadRequest) << op;
  }
}

}  // namespace
}  // namespace kmock::patch
