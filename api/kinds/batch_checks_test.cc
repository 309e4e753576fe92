// Job and CronJob defaults, the generated selector and kube-apiserver's
// messages for bad Jobs and refused Job updates.
#include "api/kinds/batch_checks.h"

#include <gtest/gtest.h>

namespace kmock::api::kinds {
namespace {

using nlohmann::json;

json Job(json spec) {
  spec["template"] = {
      {"spec",
       {{"restartPolicy", "Never"},
        {"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}};
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", {{"name", "work"}, {"uid", "u-1"}}},
          {"spec", std::move(spec)}};
}

std::vector<std::string> Messages(const FieldErrors& errs) {
  std::vector<std::string> out;
  for (const StatusCause& c : errs.causes()) {
    out.push_back(c.field + ": " + c.message);
  }
  return out;
}

json Created(json job) {
  DefaultJob(job);
  GenerateJobSelector(job);
  DefaultJob(job);
  return job;
}

TEST(JobDefaultsTest, CountsModeAndGeneratedSelector) {
  json job = Created(Job(json::object()));
  const json& spec = job["spec"];
  EXPECT_EQ(spec["completions"], 1);
  EXPECT_EQ(spec["parallelism"], 1);
  EXPECT_EQ(spec["backoffLimit"], 6);
  EXPECT_EQ(spec["completionMode"], "NonIndexed");
  EXPECT_EQ(spec["suspend"], false);
  EXPECT_EQ(spec["podReplacementPolicy"], "TerminatingOrFailed");
  EXPECT_EQ(
      spec["selector"],
      json({{"matchLabels", {{"batch.kubernetes.io/controller-uid", "u-1"}}}}));
  const json labels = {{"batch.kubernetes.io/controller-uid", "u-1"},
                       {"batch.kubernetes.io/job-name", "work"},
                       {"controller-uid", "u-1"},
                       {"job-name", "work"}};
  EXPECT_EQ(spec["template"]["metadata"]["labels"], labels);
  EXPECT_EQ(job["metadata"]["labels"], labels);
  FieldErrors errs;
  ValidateJob(job, &errs);
  EXPECT_TRUE(errs.causes().empty()) << Messages(errs)[0];

  json only_parallel = Created(Job({{"parallelism", 3}}));
  EXPECT_FALSE(only_parallel["spec"].contains("completions"));
  json cron = {{"spec", {{"schedule", "* * * * *"}}}};
  DefaultCronJob(cron);
  EXPECT_EQ(cron["spec"]["concurrencyPolicy"], "Allow");
  EXPECT_EQ(cron["spec"]["successfulJobsHistoryLimit"], 3);
  EXPECT_EQ(cron["spec"]["failedJobsHistoryLimit"], 1);
}

TEST(JobValidationTest, IndexedNeedsCompletions) {
  json job = Created(Job({{"parallelism", 2}, {"completionMode", "Indexed"}}));
  FieldErrors errs;
  ValidateJob(job, &errs);
  EXPECT_EQ(Messages(errs),
            std::vector<std::string>{"spec.completions: Required value: when "
                                     "completion mode is Indexed"});
  json per_index = Created(Job({{"backoffLimitPerIndex", 1}}));
  FieldErrors errs2;
  ValidateJob(per_index, &errs2);
  EXPECT_EQ(Messages(errs2),
            std::vector<std::string>{"spec.backoffLimitPerIndex: Forbidden: "
                                     "requires indexed completion mode"});
}

TEST(JobValidationTest, UpdatesKeepTheImmutableFields) {
  const json old = Created(Job({{"completions", 2}}));
  json more = old;
  more["spec"]["completions"] = 3;
  FieldErrors errs;
  ValidateJobUpdate(more, old, &errs);
  EXPECT_EQ(Messages(errs),
            std::vector<std::string>{
                "spec.completions: Invalid value: 3: field is immutable"});
  json image = old;
  image["spec"]["template"]["spec"]["containers"][0]["image"] = "alpine";
  FieldErrors errs2;
  ValidateJobUpdate(image, old, &errs2);
  ASSERT_EQ(errs2.causes().size(), 1u);
  EXPECT_EQ(errs2.causes()[0].field, "spec.template");
  // Suspended and never started: where its pods run may change.
  json suspended = old;
  suspended["spec"]["suspend"] = true;
  json moved = suspended;
  moved["spec"]["template"]["spec"]["nodeSelector"] = {{"zone", "b"}};
  FieldErrors errs3;
  ValidateJobUpdate(moved, suspended, &errs3);
  EXPECT_TRUE(errs3.causes().empty());
}

}  // namespace
}  // namespace kmock::api::kinds
