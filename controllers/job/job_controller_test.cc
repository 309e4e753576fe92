// The Job controller against a registry (the test plays the kubelet): pods
// run one after another to the completions with the tracking finalizer
// counted then removed, an Indexed Job completes every index, a failing Job
// waits out the back-off on the clock and fails at its backoffLimit, and the
// TTL controller deletes a finished Job after its TTL.
#include "controllers/job/job_controller.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "controllers/job/job_pods.h"
#include "controllers/job/ttl_after_finished_controller.h"
#include "controllers/replicaset_controller.h"
#include "controllers/tests/controller_fixture.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;

class JobControllerTest : public testing::ControllerFixture {
 protected:
  void SetUp() override {
    ControllerFixture::SetUp();
    ASSERT_NE(res_.jobs, nullptr);
    pods_ = std::make_unique<Informer>(registry_.get(), res_.pods);
    pods_->AddIndex(kByNamespaceIndex, NamespaceIndex);
    pods_->AddIndex(kByControllerIndex, ControllerIndex);
    ctl_ = std::make_unique<JobController>(registry_.get(), &clock_, res_,
                                           pods_.get());
    ttl_ = std::make_unique<TtlAfterFinishedController>(registry_.get(),
                                                        &clock_, res_);
    pods_->Start();
    ctl_->Start();
    ttl_->Start();
  }
  void TearDown() override {
    ttl_->Stop();
    ctl_->Stop();
    pods_->Stop();
    ControllerFixture::TearDown();
  }

  void CreateJob(json spec, const std::string& name = "work") {
    spec["template"] = {
        {"spec",
         {{"restartPolicy", "Never"},
          {"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}};
    json job = {{"apiVersion", "batch/v1"},
                {"kind", "Job"},
                {"metadata", {{"name", name}}},
                {"spec", spec}};
    auto made = registry_->Create(*res_.jobs, "default", job, {});
    ASSERT_TRUE(made.ok()) << made.status().ToString();
  }
  std::vector<json> Pods() { return Items(*res_.pods); }
  // Plays the kubelet: every running pod ends with `phase`.
  int Finish(const std::string& phase) {
    int n = 0;
    for (json pod : Pods()) {
      if (pod.value("status", json::object()).contains("phase") &&
          pod["status"]["phase"] != "Pending" &&
          pod["status"]["phase"] != "Running") {
        continue;
      }
      pod["status"]["phase"] = phase;
      pod["status"]["containerStatuses"] = {
          {{"name", "main"},
           {"restartCount", 0},
           {"state",
            {{"terminated", {{"exitCode", phase == "Failed" ? 1 : 0}}}}}}};
      const std::string name = pod["metadata"]["name"];
      auto r =
          registry_->Update(*res_.pods, "default", name, "status", pod, {});
      if (r.ok()) ++n;
    }
    return n;
  }
  json JobStatus() {
    auto r = registry_->Get(*res_.jobs, "default", "work");
    return r.ok() ? (*r).value("status", json::object()) : json();
  }
  std::vector<std::string> ConditionTypes() {
    std::vector<std::string> out;
    for (const json& c : JobStatus().value("conditions", json::array())) {
      if (c["status"] == "True") out.push_back(c["type"]);
    }
    return out;
  }

  std::unique_ptr<Informer> pods_;
  std::unique_ptr<JobController> ctl_;
  std::unique_ptr<TtlAfterFinishedController> ttl_;
};

TEST_F(JobControllerTest, RunsToCompletionsOneAtATime) {
  CreateJob({{"completions", 2}, {"parallelism", 1}});
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(Eventually([&] {
      int running = 0;
      for (const json& p : Pods()) {
        if (!p.value("status", json::object()).contains("phase") ||
            p["status"]["phase"] == "Pending") {
          ++running;
          EXPECT_TRUE(job::HasTrackingFinalizer(p));
          EXPECT_EQ(p["metadata"]["labels"]["job-name"], "work");
        }
      }
      return running == 1 && JobStatus().value("active", 0) == 1;
    })) << JobStatus().dump();
    ASSERT_EQ(Finish("Succeeded"), 1);
  }
  ASSERT_TRUE(Eventually([&] {
    return ConditionTypes() ==
           std::vector<std::string>{"SuccessCriteriaMet", "Complete"};
  })) << JobStatus().dump();
  json st = JobStatus();
  EXPECT_EQ(st["succeeded"], 2);
  EXPECT_FALSE(st.contains("active"));
  EXPECT_EQ(st["uncountedTerminatedPods"], json::object());
  EXPECT_TRUE(st.contains("completionTime"));
  EXPECT_EQ(st["conditions"][1]["reason"], "CompletionsReached");
  ASSERT_TRUE(Eventually([&] {
    for (const json& p : Pods()) {
      if (job::HasTrackingFinalizer(p)) return false;
    }
    return Pods().size() == 2;
  }));
}

TEST_F(JobControllerTest, IndexedJobCompletesEveryIndex) {
  CreateJob(
      {{"completions", 3}, {"parallelism", 2}, {"completionMode", "Indexed"}});
  std::set<std::string> seen;
  ASSERT_TRUE(Eventually([&] {
    for (const json& p : Pods()) {
      seen.insert(p["metadata"]["annotations"][job::kCompletionIndex]);
      EXPECT_EQ(p["spec"]["hostname"],
                "work-" + p["metadata"]["annotations"][job::kCompletionIndex]
                              .get<std::string>());
    }
    Finish("Succeeded");
    return JobStatus().value("completedIndexes", "") == "0-2" &&
           ConditionTypes().size() == 2;
  })) << JobStatus().dump();
  EXPECT_EQ(seen, (std::set<std::string>{"0", "1", "2"}));
}

// A pod the last sync made that the informer shows only during the next
// sync's work must not be made again (expectations are read before the
// pods are listed).
TEST_F(JobControllerTest, ManyIndexedJobsNeverRepeatAnIndex) {
  constexpr int kJobs = 12;
  for (int i = 0; i < kJobs; ++i) {
    CreateJob(
        {{"completions", 5}, {"parallelism", 2}, {"completionMode", "Indexed"}},
        "ix" + std::to_string(i));
  }
  ASSERT_TRUE(Eventually([&] {
    Finish("Succeeded");
    int complete = 0;
    for (const json& j : Items(*res_.jobs)) {
      const json st = j.value("status", json::object());
      for (const json& c : st.value("conditions", json::array())) {
        if (c.value("type", "") == "Complete") ++complete;
      }
    }
    return complete == kJobs;
  }));
  std::map<std::string, std::set<std::string>> indexes;
  for (const json& p : Pods()) {
    const std::string job = p["metadata"]["labels"]["job-name"];
    const std::string index =
        p["metadata"]["annotations"][job::kCompletionIndex];
    EXPECT_TRUE(indexes[job].insert(index).second)
        << job << " ran index " << index << " twice";
  }
  for (const json& j : Items(*res_.jobs)) {
    EXPECT_EQ(j.value("status", json::object()).value("succeeded", 0), 5)
        << j.dump();
  }
}

TEST_F(JobControllerTest, BackoffLimitFailsTheJob) {
  CreateJob({{"backoffLimit", 1}});
  ASSERT_TRUE(Eventually([&] { return Pods().size() == 1; }));
  ASSERT_EQ(Finish("Failed"), 1);
  ASSERT_TRUE(Eventually([&] { return JobStatus().value("failed", 0) == 1; }));
  // The next pod waits out 10 s of back-off.
  EXPECT_TRUE(Stays([&] { return Pods().size() == 1; }));
  clock_.Advance(std::chrono::seconds(11));
  ASSERT_TRUE(Eventually([&] { return Pods().size() == 2; }));
  ASSERT_EQ(Finish("Failed"), 1);
  ASSERT_TRUE(Eventually([&] {
    return ConditionTypes() ==
           std::vector<std::string>{"FailureTarget", "Failed"};
  })) << JobStatus().dump();
  EXPECT_EQ(JobStatus()["conditions"][1]["reason"], "BackoffLimitExceeded");
  EXPECT_EQ(JobStatus()["conditions"][1]["message"],
            "Job has reached the specified backoff limit");
}

TEST_F(JobControllerTest, TtlDeletesTheFinishedJob) {
  CreateJob({{"ttlSecondsAfterFinished", 30}});
  ASSERT_TRUE(Eventually([&] { return Pods().size() == 1; }));
  ASSERT_EQ(Finish("Succeeded"), 1);
  ASSERT_TRUE(Eventually([&] { return ConditionTypes().size() == 2; }));
  EXPECT_TRUE(Stays([&] { return !JobStatus().is_null(); }));
  clock_.Advance(std::chrono::seconds(31));
  ASSERT_TRUE(Eventually([&] {
    auto r = registry_->Get(*res_.jobs, "default", "work");
    return !r.ok() || (*r)["metadata"].contains("deletionTimestamp");
  }));
}

}  // namespace
}  // namespace kmock::controllers
