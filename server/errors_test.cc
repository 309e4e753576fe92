#include "server/errors.h"

#include <gtest/gtest.h>

#include "patch/patch_status.h"
#include "server/response.h"

namespace kmock::server {
namespace {

using nlohmann::json;

TEST(ErrorsTest, NotFoundObject) {
  StatusDetails d;
  d.name = "nosuch";
  d.kind = "pods";
  Status st(StatusCode::kNotFound, "pods \"nosuch\" not found", d);
  EXPECT_EQ(HttpCode(st), 404);
  EXPECT_EQ(StatusJson(st),
            json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},
              "status":"Failure","message":"pods \"nosuch\" not found",
              "reason":"NotFound","details":{"name":"nosuch","kind":"pods"},"code":404})"));
}

TEST(ErrorsTest, UnauthorizedHasNoDetails) {
  EXPECT_EQ(StatusJson(UnauthorizedError()),
            json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},
              "status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})"));
}

TEST(ErrorsTest, UnknownPathAndMethodHaveEmptyDetails) {
  json nf = StatusJson(NotFoundPathError());
  EXPECT_EQ(nf["message"], "the server could not find the requested resource");
  EXPECT_EQ(nf["details"], json::object());
  EXPECT_EQ(nf["code"], 404);
  json mna = StatusJson(MethodNotAllowedError());
  EXPECT_EQ(mna["reason"], "MethodNotAllowed");
  EXPECT_EQ(mna["details"], json::object());
  EXPECT_EQ(mna["code"], 405);
}

TEST(ErrorsTest, InvalidCarriesCausesAndGroup) {
  StatusDetails d;
  d.name = "web";
  d.group = "apps";
  d.kind = "Deployment";
  d.causes.push_back({"FieldValueRequired", "Required value", "spec.template"});
  Status st(StatusCode::kInvalid, "Deployment.apps \"web\" is invalid: ...", d);
  json j = StatusJson(st);
  EXPECT_EQ(HttpCode(st), 422);
  EXPECT_EQ(j["reason"], "Invalid");
  EXPECT_EQ(j["details"]["group"], "apps");
  EXPECT_EQ(
      j["details"]["causes"][0],
      json::parse(R"({"reason":"FieldValueRequired","message":"Required value",
                            "field":"spec.template"})"));
}

TEST(ErrorsTest, CodesAndReasons) {
  struct Case {
    StatusCode code;
    int http;
    const char* reason;
  } cases[] = {
      {StatusCode::kAlreadyExists, 409, "AlreadyExists"},
      {StatusCode::kConflict, 409, "Conflict"},
      {StatusCode::kExpired, 410, "Expired"},
      {StatusCode::kCompacted, 410, "Expired"},
      {StatusCode::kRequestEntityTooLarge, 413, "RequestEntityTooLarge"},
      {StatusCode::kUnsupportedMediaType, 415, "UnsupportedMediaType"},
      {StatusCode::kInternal, 500, "InternalError"},
      {StatusCode::kServiceUnavailable, 503, "ServiceUnavailable"},
      {StatusCode::kTooManyRequests, 429, "TooManyRequests"},
  };
  for (const Case& c : cases) {
    Status st(c.code, "m");
    EXPECT_EQ(HttpCode(st), c.http) << c.reason;
    EXPECT_EQ(Reason(st), c.reason);
  }
  Status custom = Status(StatusCode::kConflict, "x").set_reason("Custom");
  EXPECT_EQ(StatusJson(custom)["reason"], "Custom");
}

TEST(ErrorsTest, UnconvertedErrorHasNoReasonNorDetails) {
  json j = StatusJson(patch::UnconvertedError("Invalid JSON Patch"));
  EXPECT_EQ(j, json::parse(R"({"kind":"Status","apiVersion":"v1",
      "metadata":{},"status":"Failure","message":"Invalid JSON Patch",
      "code":500})"));
}

TEST(ErrorsTest, ErrorBodyEndsWithNewline) {
  httplib::Response res;
  WriteError(res, NotFoundPathError());
  EXPECT_EQ(res.status, 404);
  ASSERT_FALSE(res.body.empty());
  EXPECT_EQ(res.body.back(), '\n');
  EXPECT_EQ(json::parse(res.body)["reason"], "NotFound");
}

TEST(ErrorsTest, RetryAfterAndUid) {
  StatusDetails d;
  d.uid = "u-1";
  d.retry_after_seconds = 3;
  json j = StatusJson(Status(StatusCode::kTooManyRequests, "slow down", d));
  EXPECT_EQ(j["details"],
            json::parse(R"({"uid":"u-1","retryAfterSeconds":3})"));
}

TEST(ErrorsTest, TooLargeAndOptions) {
  EXPECT_EQ(RequestEntityTooLargeError(3145728).message(),
            "Request entity too large: limit is 3145728");
  Status st = InvalidOptionsError(
      "CreateOptions", "dryRun", "FieldValueNotSupported",
      "Unsupported value: []string{\"x\"}: supported values: \"All\"");
  EXPECT_EQ(HttpCode(st), 422);
  EXPECT_EQ(
      st.message(),
      "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: "
      "[]string{\"x\"}: supported values: \"All\"");
}

TEST(ErrorsTest, SuccessStatusForDeletes) {
  StatusDetails d;
  d.name = "cm1";
  d.kind = "configmaps";
  d.uid = "abc";
  EXPECT_EQ(
      SuccessStatusJson(d),
      json::parse(
          R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success",
              "details":{"name":"cm1","kind":"configmaps","uid":"abc"}})"));
}

TEST(ErrorsTest, WarningHeaderQuotes) {
  EXPECT_EQ(WarningHeaderValue("unknown field \"spec.foo\""),
            "299 - \"unknown field \\\"spec.foo\\\"\"");
}

}  // namespace
}  // namespace kmock::server
