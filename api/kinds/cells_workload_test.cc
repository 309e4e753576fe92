// The Table rows of DaemonSets, StatefulSets, ControllerRevisions, Jobs,
// CronJobs, HorizontalPodAutoscalers and PodDisruptionBudgets, printed
// through the real catalog.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/builtin_catalog.h"
#include "common/clock.h"

namespace kmock::api {
namespace {

using nlohmann::json;
using Row = std::vector<json>;

TimePoint At(const std::string& s) {
  TimePoint t;
  EXPECT_TRUE(ParseRfc3339(s, &t)) << s;
  return t;
}

const TimePoint kNow = At("2024-05-01T01:00:00Z");

json Meta(const std::string& name) {
  return {{"name", name},
          {"namespace", "default"},
          {"creationTimestamp", "2024-05-01T00:00:00Z"}};
}

json PodTemplate() {
  return {
      {"spec", {{"containers", {{{"name", "app"}, {"image", "nginx:1.25"}}}}}}};
}

// --- apps/v1 ---------------------------------------------------------------

json Revision(json owners) {
  json meta = Meta("web-5d4f8");
  if (!owners.is_null()) meta["ownerReferences"] = std::move(owners);
  return {{"apiVersion", "apps/v1"},
          {"kind", "ControllerRevision"},
          {"metadata", meta},
          {"revision", 3}};
}

TEST(WorkloadCellsTest, ControllerRevisionController) {
  json owners = {{{"apiVersion", "apps/v1"},
                  {"kind", "DaemonSet"},
                  {"name", "other"},
                  {"controller", false}},
                 {{"apiVersion", "apps/v1"},
                  {"kind", "StatefulSet"},
                  {"name", "web"},
                  {"controller", true}}};
  EXPECT_EQ(
      testing::RowOf("apps", "controllerrevisions", Revision(owners), kNow),
      (Row{"web-5d4f8", "statefulset.apps/web", 3, "60m"}));

  // The core group prints no group; no controller at all prints <none>.
  json core = {{{"apiVersion", "v1"},
                {"kind", "ReplicationController"},
                {"name", "rc"},
                {"controller", true}}};
  EXPECT_EQ(
      testing::RowOf("apps", "controllerrevisions", Revision(core), kNow)[1],
      "replicationcontroller/rc");
  json not_controller = {
      {{"apiVersion", "apps/v1"}, {"kind", "StatefulSet"}, {"name", "web"}}};
  EXPECT_EQ(testing::RowOf("apps", "controllerrevisions",
                           Revision(not_controller), kNow)[1],
            "<none>");
  EXPECT_EQ(
      testing::RowOf("apps", "controllerrevisions", Revision(json()), kNow)[1],
      "<none>");
}

json DaemonSet(json node_selector) {
  json tmpl = PodTemplate();
  if (!node_selector.is_null()) {
    tmpl["spec"]["nodeSelector"] = std::move(node_selector);
  }
  return {{"apiVersion", "apps/v1"},
          {"kind", "DaemonSet"},
          {"metadata", Meta("agent")},
          {"spec",
           {{"selector", {{"matchLabels", {{"app", "agent"}}}}},
            {"template", tmpl}}},
          {"status",
           {{"desiredNumberScheduled", 3},
            {"currentNumberScheduled", 3},
            {"numberReady", 2},
            {"updatedNumberScheduled", 1},
            {"numberAvailable", 2}}}};
}

TEST(WorkloadCellsTest, DaemonSetRow) {
  json sel = {{"zone", "a"}, {"kubernetes.io/os", "linux"}};
  EXPECT_EQ(testing::RowOf("apps", "daemonsets", DaemonSet(sel), kNow),
            (Row{"agent", 3, 3, 2, 1, 2, "kubernetes.io/os=linux,zone=a", "60m",
                 "app", "nginx:1.25", "app=agent"}));
  EXPECT_EQ(testing::RowOf("apps", "daemonsets", DaemonSet(json()), kNow)[6],
            "<none>");
  EXPECT_EQ(
      testing::RowOf("apps", "daemonsets", DaemonSet(json::object()), kNow)[6],
      "<none>");
}

TEST(WorkloadCellsTest, StatefulSetReady) {
  json sts = {{"apiVersion", "apps/v1"},
              {"kind", "StatefulSet"},
              {"metadata", Meta("db")},
              {"spec", {{"replicas", 3}, {"template", PodTemplate()}}},
              {"status", {{"readyReplicas", 2}}}};
  EXPECT_EQ(testing::RowOf("apps", "statefulsets", sts, kNow),
            (Row{"db", "2/3", "60m", "app", "nginx:1.25"}));
  // No replicas means the default of one; no status means none ready.
  sts["spec"].erase("replicas");
  sts.erase("status");
  EXPECT_EQ(testing::RowOf("apps", "statefulsets", sts, kNow)[1], "0/1");
}

// --- batch/v1 --------------------------------------------------------------

json Job() {
  return {
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata", Meta("pi")},
      {"spec",
       {{"completions", 2},
        {"parallelism", 1},
        {"selector", {{"matchLabels", {{"job-name", "pi"}}}}},
        {"template", PodTemplate()}}},
      {"status", {{"succeeded", 1}, {"startTime", "2024-05-01T00:00:10Z"}}}};
}

json Condition(const std::string& type, const std::string& status) {
  return {{"type", type}, {"status", status}};
}

TEST(WorkloadCellsTest, JobRunningRow) {
  EXPECT_EQ(testing::RowOf("batch", "jobs", Job(), kNow),
            (Row{"pi", "Running", "1/2", "59m", "60m", "app", "nginx:1.25",
                 "job-name=pi"}));
}

TEST(WorkloadCellsTest, JobStatusOrder) {
  auto status = [](const json& job) {
    return testing::RowOf("batch", "jobs", job, kNow)[1];
  };
  json job = Job();
  json& conds = job["status"]["conditions"];
  conds = json::array({Condition("FailureTarget", "True")});
  EXPECT_EQ(status(job), "FailureTarget");
  conds.push_back(Condition("Suspended", "True"));
  EXPECT_EQ(status(job), "Suspended");
  job["metadata"]["deletionTimestamp"] = "2024-05-01T00:59:00Z";
  EXPECT_EQ(status(job), "Terminating");
  conds.push_back(Condition("Failed", "True"));
  EXPECT_EQ(status(job), "Failed");
  conds.push_back(Condition("Complete", "True"));
  EXPECT_EQ(status(job), "Complete");

  // A condition counts only when True, and only its first entry is read.
  json off = Job();
  off["status"]["conditions"] = {Condition("Complete", "False"),
                                 Condition("Suspended", "Unknown")};
  EXPECT_EQ(status(off), "Running");
  off["status"]["conditions"] = {Condition("Failed", "False"),
                                 Condition("Failed", "True")};
  EXPECT_EQ(status(off), "Running");
}

TEST(WorkloadCellsTest, JobCompletions) {
  auto completions = [](const json& job) {
    return testing::RowOf("batch", "jobs", job, kNow)[2];
  };
  json job = Job();
  job["spec"].erase("completions");
  EXPECT_EQ(completions(job), "1/1");
  job["spec"]["parallelism"] = 4;
  EXPECT_EQ(completions(job), "1/1 of 4");
  job["spec"].erase("parallelism");
  job.erase("status");
  EXPECT_EQ(completions(job), "0/1");
  job["spec"]["completions"] = 0;
  EXPECT_EQ(completions(job), "0/0");
}

TEST(WorkloadCellsTest, JobDuration) {
  auto duration = [](const json& job) {
    return testing::RowOf("batch", "jobs", job, kNow)[3];
  };
  json job = Job();
  job["status"]["completionTime"] = "2024-05-01T00:00:55Z";
  EXPECT_EQ(duration(job), "45s");
  job["status"]["completionTime"] = "2024-05-01T00:03:20Z";
  EXPECT_EQ(duration(job), "3m10s");
  job["status"].erase("completionTime");
  job["status"]["startTime"] = "2024-04-29T01:00:00Z";
  EXPECT_EQ(duration(job), "2d");
  job["status"].erase("startTime");
  EXPECT_EQ(duration(job), "");
}

json CronJob() {
  json job_template = {{"spec",
                        {{"selector", {{"matchLabels", {{"run", "nightly"}}}}},
                         {"template", PodTemplate()}}}};
  return {{"apiVersion", "batch/v1"},
          {"kind", "CronJob"},
          {"metadata", Meta("nightly")},
          {"spec",
           {{"schedule", "0 3 * * *"},
            {"suspend", false},
            {"jobTemplate", job_template}}},
          {"status",
           {{"active", {{{"name", "nightly-1"}}}},
            {"lastScheduleTime", "2024-05-01T00:55:00Z"}}}};
}

TEST(WorkloadCellsTest, CronJobRow) {
  EXPECT_EQ(testing::RowOf("batch", "cronjobs", CronJob(), kNow),
            (Row{"nightly", "0 3 * * *", "<none>", "False", 1, "5m", "60m",
                 "app", "nginx:1.25", "run=nightly"}));
  json cj = CronJob();
  cj["spec"]["suspend"] = true;
  EXPECT_EQ(testing::RowOf("batch", "cronjobs", cj, kNow)[3], "True");
  cj["spec"].erase("suspend");
  cj.erase("status");
  Row row = testing::RowOf("batch", "cronjobs", cj, kNow);
  EXPECT_EQ(row[3], "<unset>");
  EXPECT_EQ(row[4], 0);
  EXPECT_EQ(row[5], "<none>");
}

// --- autoscaling -----------------------------------------------------------

json HpaV1() {
  return {
      {"apiVersion", "autoscaling/v1"},
      {"kind", "HorizontalPodAutoscaler"},
      {"metadata", Meta("web")},
      {"spec",
       {{"scaleTargetRef",
         {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}},
        {"minReplicas", 2},
        {"maxReplicas", 10},
        {"targetCPUUtilizationPercentage", 50}}},
      {"status", {{"currentReplicas", 3}}}};
}

TEST(WorkloadCellsTest, HpaV1Row) {
  json hpa = HpaV1();
  EXPECT_EQ(
      testing::RowOf("autoscaling", "horizontalpodautoscalers", hpa, kNow),
      (Row{"web", "Deployment/web", "cpu: <unknown>/50%", "2", 10, 3, "60m"}));
  hpa["status"]["currentCPUUtilizationPercentage"] = 42;
  EXPECT_EQ(
      testing::RowOf("autoscaling", "horizontalpodautoscalers", hpa, kNow)[2],
      "cpu: 42%/50%");
  // Without a target, conversion gives the default CPU target of 80%.
  hpa["spec"].erase("targetCPUUtilizationPercentage");
  hpa["spec"].erase("minReplicas");
  Row row =
      testing::RowOf("autoscaling", "horizontalpodautoscalers", hpa, kNow);
  EXPECT_EQ(row[2], "cpu: 42%/80%");
  EXPECT_EQ(row[3], "<unset>");
}

Row RowV2(const json& hpa) {
  return testing::BuiltinCatalog()
      .Find("autoscaling", "v2", "horizontalpodautoscalers")
      ->cells(hpa, kNow);
}

json HpaV2(json metrics, json current) {
  json hpa = HpaV1();
  hpa["apiVersion"] = "autoscaling/v2";
  hpa["spec"].erase("targetCPUUtilizationPercentage");
  if (!metrics.is_null()) hpa["spec"]["metrics"] = std::move(metrics);
  if (!current.is_null()) hpa["status"]["currentMetrics"] = std::move(current);
  return hpa;
}

json ResourceUtil(const std::string& name, json target) {
  json t = {{"type", "Utilization"}};
  if (!target.is_null()) t["averageUtilization"] = std::move(target);
  return {{"type", "Resource"}, {"resource", {{"name", name}, {"target", t}}}};
}

TEST(WorkloadCellsTest, HpaV2Row) {
  json metrics = {ResourceUtil("cpu", 60)};
  json current = {
      {{"type", "Resource"},
       {"resource",
        {{"name", "cpu"},
         {"current",
          {{"averageUtilization", 20}, {"averageValue", "100m"}}}}}}};
  EXPECT_EQ(RowV2(HpaV2(metrics, current)),
            (Row{"web", "Deployment/web", "cpu: 20%/60%", "2", 10, 3, "60m"}));
  EXPECT_EQ(RowV2(HpaV2(metrics, json()))[2], "cpu: <unknown>/60%");
  EXPECT_EQ(RowV2(HpaV2({ResourceUtil("memory", json())}, json()))[2],
            "memory: <unknown>/<auto>");
  EXPECT_EQ(RowV2(HpaV2(json(), json()))[2], "<none>");
  EXPECT_EQ(RowV2(HpaV2(json::array(), json()))[2], "<none>");
}

TEST(WorkloadCellsTest, HpaV2MetricKinds) {
  json metrics = {
      {{"type", "Pods"},
       {"pods",
        {{"metric", {{"name", "qps"}}},
         {"target", {{"type", "AverageValue"}, {"averageValue", "1k"}}}}}},
      {{"type", "Object"},
       {"object",
        {{"metric", {{"name", "hits"}}},
         {"target", {{"type", "Value"}, {"value", "10"}}}}}},
  };
  json current = {
      {{"type", "Pods"}, {"pods", {{"current", {{"averageValue", "250"}}}}}},
      {{"type", "Object"}, {"object", {{"current", {{"value", "7"}}}}}},
  };
  EXPECT_EQ(RowV2(HpaV2(metrics, current))[2], "250/1k, 7/10");
  EXPECT_EQ(RowV2(HpaV2(metrics, json()))[2], "<unknown>/1k, <unknown>/10");

  json averages = {
      {{"type", "External"},
       {"external",
        {{"metric", {{"name", "queue"}}},
         {"target", {{"type", "AverageValue"}, {"averageValue", "30"}}}}}},
      {{"type", "ContainerResource"},
       {"containerResource",
        {{"name", "memory"},
         {"container", "app"},
         {"target", {{"type", "AverageValue"}, {"averageValue", "512Mi"}}}}}},
  };
  json avg_current = {
      {{"type", "External"},
       {"external", {{"current", {{"averageValue", "12"}}}}}},
      {{"type", "ContainerResource"},
       {"containerResource",
        {{"name", "memory"}, {"current", {{"averageValue", "300Mi"}}}}}},
  };
  EXPECT_EQ(RowV2(HpaV2(averages, avg_current))[2],
            "12/30 (avg), memory: 300Mi/512Mi");
  EXPECT_EQ(RowV2(HpaV2(averages, json()))[2],
            "<unknown>/30 (avg), memory: <unknown>/512Mi");
  EXPECT_EQ(RowV2(HpaV2({{{"type", "Custom"}}}, json()))[2], "<unknown type>");
}

TEST(WorkloadCellsTest, HpaV2MoreThanTwoMetrics) {
  json metrics = {ResourceUtil("cpu", 60), ResourceUtil("memory", 70),
                  ResourceUtil("ephemeral-storage", 80),
                  ResourceUtil("nvidia.com/gpu", 90)};
  json current = {
      {{"type", "Resource"},
       {"resource",
        {{"name", "cpu"}, {"current", {{"averageUtilization", 5}}}}}}};
  EXPECT_EQ(RowV2(HpaV2(metrics, current))[2],
            "cpu: 5%/60%, memory: <unknown>/70% + 2 more...");
  metrics.erase(metrics.size() - 1);
  EXPECT_EQ(RowV2(HpaV2(metrics, current))[2],
            "cpu: 5%/60%, memory: <unknown>/70% + 1 more...");
  metrics.erase(metrics.size() - 1);
  EXPECT_EQ(RowV2(HpaV2(metrics, current))[2],
            "cpu: 5%/60%, memory: <unknown>/70%");
}

// --- policy/v1 -------------------------------------------------------------

json Pdb(json spec) {
  return {{"apiVersion", "policy/v1"},
          {"kind", "PodDisruptionBudget"},
          {"metadata", Meta("web-pdb")},
          {"spec", std::move(spec)},
          {"status", {{"disruptionsAllowed", 1}}}};
}

TEST(WorkloadCellsTest, PdbRow) {
  EXPECT_EQ(testing::RowOf("policy", "poddisruptionbudgets",
                           Pdb({{"minAvailable", 2}}), kNow),
            (Row{"web-pdb", "2", "N/A", 1, "60m"}));
  Row row = testing::RowOf("policy", "poddisruptionbudgets",
                           Pdb({{"maxUnavailable", "25%"}}), kNow);
  EXPECT_EQ(row[1], "N/A");
  EXPECT_EQ(row[2], "25%");
  row = testing::RowOf("policy", "poddisruptionbudgets", Pdb(json::object()),
                       kNow);
  EXPECT_EQ(row[1], "N/A");
  EXPECT_EQ(row[2], "N/A");
}

}  // namespace
}  // namespace kmock::api
