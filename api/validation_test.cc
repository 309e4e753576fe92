#include "api/validation.h"

#include <gtest/gtest.h>

namespace kmock::api {
namespace {

using nlohmann::json;

std::vector<std::string> Messages(const FieldErrors& errs) {
  std::vector<std::string> out;
  for (const auto& c : errs.causes()) out.push_back(c.field + ": " + c.message);
  return out;
}

TEST(ValidationTest, BadSubdomainName) {
  FieldErrors errs;
  ValidateObjectMeta(json{{"name", "Bad_Name"}, {"namespace", "default"}}, true,
                     "subdomain", &errs);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(
      Messages(errs)[0],
      "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 "
      "subdomain must consist of lower case alphanumeric characters, '-' or "
      "'.', and must start and end with an alphanumeric character (e.g. "
      "'example.com', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
}

TEST(ValidationTest, LabelRuleAndLength) {
  FieldErrors errs;
  ValidateObjectMeta(json{{"name", std::string(64, 'a')}}, false, "label",
                     &errs);
  auto m = Messages(errs);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0], "metadata.name: Invalid value: \"" + std::string(64, 'a') +
                      "\": must be no more than 63 characters");
  errs = FieldErrors();
  ValidateObjectMeta(json{{"name", "a.b"}}, false, "label", &errs);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(Messages(errs)[0],
            "metadata.name: Invalid value: \"a.b\": a lowercase RFC 1123 label "
            "must consist of lower case alphanumeric characters or '-', and "
            "must start and end with an alphanumeric character (e.g. "
            "'my-name',  or '123-abc', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
}

TEST(ValidationTest, NameRequiredAndNamespace) {
  FieldErrors errs;
  ValidateObjectMeta(json::object(), true, "subdomain", &errs);
  EXPECT_EQ(Messages(errs),
            (std::vector<std::string>{
                "metadata.name: Required value: name or generateName is "
                "required",
                "metadata.namespace: Required value"}));
  errs = FieldErrors();
  ValidateObjectMeta(json{{"name", "n"}, {"namespace", "x"}}, false,
                     "subdomain", &errs);
  EXPECT_EQ(Messages(errs),
            (std::vector<std::string>{
                "metadata.namespace: Forbidden: not allowed on this type"}));
}

TEST(ValidationTest, GenerateNameMayEndInDash) {
  FieldErrors errs;
  ValidateObjectMeta(json{{"name", "web-abcde"}, {"generateName", "web-"}},
                     false, "subdomain", &errs);
  EXPECT_TRUE(errs.empty());
}

TEST(ValidationTest, LabelsKeysAndValues) {
  FieldErrors errs;
  ValidateLabels(json{{"a/b/c", "x"}, {"ok", "bad value"}}, "metadata.labels",
                 &errs);
  auto m = Messages(errs);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0],
            "metadata.labels: Invalid value: \"a/b/c\": a qualified name must "
            "consist of alphanumeric characters, '-', '_' or '.', and must "
            "start and end with an alphanumeric character (e.g. 'MyName',  or "
            "'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
            "subdomain prefix and '/' (e.g. 'example.com/MyName')");
  EXPECT_EQ(m[1],
            "metadata.labels: Invalid value: \"bad value\": a valid label must "
            "be an empty string or consist of alphanumeric characters, '-', "
            "'_' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
            "used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
}

TEST(ValidationTest, QualifiedNamePrefix) {
  auto errs = IsQualifiedName("/x");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0], "prefix part must be non-empty");
  EXPECT_TRUE(IsQualifiedName("example.com/My_Name").empty());
  EXPECT_EQ(IsQualifiedName("Example.com/x").size(), 1u);
}

TEST(ValidationTest, AnnotationsTotalSize) {
  FieldErrors errs;
  ValidateAnnotations(json{{"a", std::string(256 * 1024, 'x')}},
                      "metadata.annotations", &errs);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(Messages(errs)[0],
            "metadata.annotations: Too long: may not be more than 262144 "
            "bytes");
  errs = FieldErrors();
  ValidateAnnotations(json{{"Example.com/Key", "v"}}, "metadata.annotations",
                      &errs);
  EXPECT_TRUE(errs.empty());
}

TEST(ValidationTest, FinalizersAndOwners) {
  FieldErrors errs;
  ValidateObjectMeta(json{{"name", "n"},
                          {"finalizers", {"example.com/f", "custom"}},
                          {"ownerReferences",
                           {{{"apiVersion", "apps/v1"},
                             {"kind", "ReplicaSet"},
                             {"name", "r"}}}}},
                     false, "subdomain", &errs);
  EXPECT_EQ(Messages(errs),
            (std::vector<std::string>{
                "metadata.ownerReferences.uid: Invalid value: \"\": uid must "
                "not be empty",
                "metadata.finalizers: Invalid value: \"custom\": name is "
                "neither a standard finalizer name nor is it fully "
                "qualified"}));
}

TEST(ValidationTest, MetaUpdateImmutable) {
  json old_meta = {{"name", "a"},
                   {"namespace", "default"},
                   {"uid", "u1"},
                   {"resourceVersion", "5"},
                   {"creationTimestamp", "2024-01-01T00:00:00Z"}};
  json new_meta = old_meta;
  new_meta["uid"] = "u2";
  new_meta["creationTimestamp"] = "2024-01-02T00:00:00Z";
  FieldErrors errs;
  ValidateObjectMetaUpdate(new_meta, old_meta, &errs);
  EXPECT_EQ(Messages(errs),
            (std::vector<std::string>{
                "metadata.uid: Invalid value: \"u2\": field is immutable",
                "metadata.creationTimestamp: Invalid value: "
                "\"2024-01-02T00:00:00Z\": field is immutable"}));
  errs = FieldErrors();
  new_meta = old_meta;
  new_meta.erase("resourceVersion");
  ValidateObjectMetaUpdate(new_meta, old_meta, &errs);
  EXPECT_EQ(Messages(errs),
            (std::vector<std::string>{
                "metadata.resourceVersion: Invalid value: \"\": must be "
                "specified for an update"}));
}

TEST(ValidationTest, NoNewFinalizersWhileDeleting) {
  json old_meta = {{"name", "a"},
                   {"resourceVersion", "5"},
                   {"deletionTimestamp", "2024-01-01T00:00:00Z"},
                   {"finalizers", {"kubernetes"}}};
  json new_meta = old_meta;
  new_meta["finalizers"] = {"kubernetes", "example.com/x"};
  FieldErrors errs;
  ValidateObjectMetaUpdate(new_meta, old_meta, &errs);
  EXPECT_EQ(Messages(errs),
            (std::vector<std::string>{
                "metadata.finalizers: Forbidden: no new finalizers can be "
                "added if the object is being deleted, found new finalizers "
                "[]string{\"example.com/x\"}"}));
}

TEST(ValidationTest, PortNames) {
  EXPECT_TRUE(IsValidPortName("http").empty());
  EXPECT_EQ(
      IsValidPortName("123"),
      (std::vector<std::string>{"must contain at least one letter (a-z)"}));
  EXPECT_EQ(IsValidPortNum(70000).size(), 1u);
}

}  // namespace
}  // namespace kmock::api
