#include "api/field_errors.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace kmock::api {
namespace {

TEST(FieldErrorsTest, MessagesAsKubeApiserver) {
  FieldErrors errs;
  errs.Required("spec.containers[0].image");
  errs.Invalid("metadata.name", "Bad_Name", "detail");
  errs.NotSupported("spec.containers[0].imagePullPolicy", "Foo",
                    {"Always", "IfNotPresent", "Never"});
  errs.Forbidden("spec", "no");
  errs.Duplicate("spec.containers[1].name", "a");
  errs.TooLong("metadata.annotations", "", 262144);
  errs.NotFound("spec.containers[0].volumeMounts[0].name", "x");
  errs.Immutable("metadata.uid", "u2");
  errs.Invalid("spec.x", 5, "bad");
  ASSERT_EQ(errs.size(), 9u);
  const auto& c = errs.causes();
  EXPECT_EQ(c[0].reason, "FieldValueRequired");
  EXPECT_EQ(c[0].message, "Required value");
  EXPECT_EQ(c[1].message, "Invalid value: \"Bad_Name\": detail");
  EXPECT_EQ(c[2].reason, "FieldValueNotSupported");
  EXPECT_EQ(c[2].message,
            "Unsupported value: \"Foo\": supported values: \"Always\", "
            "\"IfNotPresent\", \"Never\"");
  EXPECT_EQ(c[3].message, "Forbidden: no");
  EXPECT_EQ(c[4].message, "Duplicate value: \"a\"");
  EXPECT_EQ(c[5].message, "Too long: may not be more than 262144 bytes");
  EXPECT_EQ(c[5].reason, "FieldValueTooLong");
  EXPECT_EQ(c[6].message, "Not found: \"x\"");
  EXPECT_EQ(c[6].reason, "FieldValueNotFound");
  EXPECT_EQ(c[7].message, "Invalid value: \"u2\": field is immutable");
  EXPECT_EQ(c[8].message, "Invalid value: 5: bad");
}

TEST(FieldErrorsTest, ValueFormatting) {
  EXPECT_EQ(FieldValueString("a\"b"), "\"a\\\"b\"");
  EXPECT_EQ(FieldValueString(nullptr), "null");
  EXPECT_EQ(FieldValueString(true), "true");
  EXPECT_EQ(FieldValueString(nlohmann::json::array({"a"})), "[\"a\"]");
}

TEST(FieldErrorsTest, ToStatusOneError) {
  FieldErrors errs;
  errs.Required("spec.containers[0].image");
  Status st = errs.ToStatus("Pod", "", "pods", "hello");
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_EQ(st.message(),
            "Pod \"hello\" is invalid: spec.containers[0].image: Required "
            "value");
  EXPECT_EQ(st.details().kind, "Pod");
  EXPECT_EQ(st.details().group, "");
  EXPECT_EQ(st.details().name, "hello");
  ASSERT_EQ(st.details().causes.size(), 1u);
  EXPECT_EQ(st.details().causes[0].field, "spec.containers[0].image");
}

TEST(FieldErrorsTest, ToStatusSeveralErrorsAndGroup) {
  FieldErrors errs;
  errs.Required("spec.a");
  errs.Required("spec.b");
  errs.Required("spec.a");  // same message twice: shown once
  Status st = errs.ToStatus("Lease", "coordination.k8s.io", "leases", "l");
  EXPECT_EQ(st.message(),
            "Lease.coordination.k8s.io \"l\" is invalid: [spec.a: Required "
            "value, spec.b: Required value]");
  EXPECT_EQ(st.details().group, "coordination.k8s.io");
  EXPECT_EQ(st.details().causes.size(), 3u);
}

}  // namespace
}  // namespace kmock::api
