// The disruption controller's arithmetic: expected and desired counts for
// minAvailable (number and percentage) and maxUnavailable budgets, healthy
// pods without the terminating and the recently evicted, the evictions
// still pending, and the status with its DisruptionAllowed condition.
#include "controllers/disruption/budget_status.h"

#include <gtest/gtest.h>

namespace kmock::controllers::disruption {
namespace {

const TimePoint kNow = TimePoint(std::chrono::seconds(1'800'000'000));

json Pod(const std::string& name, bool ready, bool deleting = false) {
  json pod = {
      {"metadata", {{"name", name}}},
      {"status",
       {{"conditions",
         {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}}}}};
  if (deleting) pod["metadata"]["deletionTimestamp"] = "2027-01-15T07:59:00Z";
  return pod;
}

json Budget(json spec, json status = json::object()) {
  return {{"metadata", {{"name", "web"}, {"generation", 2}}},
          {"spec", std::move(spec)},
          {"status", std::move(status)}};
}

std::vector<const json*> Ptrs(const std::vector<json>& pods) {
  std::vector<const json*> out;
  for (const json& p : pods) out.push_back(&p);
  return out;
}

TEST(BudgetStatus, MinAvailableCountsThePodsSelected) {
  std::vector<json> pods = {Pod("a", true), Pod("b", true), Pod("c", false),
                            Pod("d", true, /*deleting=*/true)};
  json pdb = Budget({{"minAvailable", 1}});
  EXPECT_FALSE(NeedsControllerScale(pdb["spec"]));
  auto c = CountBudget(pdb, Ptrs(pods), 0, kNow);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->expected, 4);
  EXPECT_EQ(c->desired_healthy, 1);
  EXPECT_EQ(c->current_healthy, 2);
  json status = BudgetStatus(pdb, *c, json::object(), kNow);
  EXPECT_EQ(status["disruptionsAllowed"], 1);
  EXPECT_EQ(status["observedGeneration"], 2);
  EXPECT_FALSE(status.contains("disruptedPods"));
  EXPECT_EQ(status["conditions"][0]["reason"], "SufficientPods");
  EXPECT_EQ(status["conditions"][0]["status"], "True");
  EXPECT_EQ(status["conditions"][0]["message"], "");
}

TEST(BudgetStatus, PercentagesAndMaxUnavailableScaleWithTheControllers) {
  std::vector<json> pods = {Pod("a", true), Pod("b", true), Pod("c", true)};
  json min_pct = Budget({{"minAvailable", "50%"}});
  EXPECT_TRUE(NeedsControllerScale(min_pct["spec"]));
  auto c = CountBudget(min_pct, Ptrs(pods), 5, kNow);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->expected, 5);
  EXPECT_EQ(c->desired_healthy, 3);  // 2.5 rounded up
  json max_one = Budget({{"maxUnavailable", 1}});
  c = CountBudget(max_one, Ptrs(pods), 4, kNow);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->desired_healthy, 3);
  EXPECT_EQ(
      BudgetStatus(max_one, *c, json::object(), kNow)["disruptionsAllowed"], 0);
  EXPECT_FALSE(
      CountBudget(Budget({{"maxUnavailable", "x%"}}), Ptrs(pods), 4, kNow));
}

TEST(BudgetStatus, RecentEvictionsAreNotHealthyAndLapse) {
  std::vector<json> pods = {Pod("a", true), Pod("b", true), Pod("gone", true)};
  json pdb = Budget({{"minAvailable", 1}},
                    {{"disruptedPods",
                      {{"a", "2027-01-15T07:59:30Z"},       // 30 s ago
                       {"b", "2027-01-15T07:55:00Z"},       // lapsed
                       {"zz", "2027-01-15T07:59:50Z"}}}});  // no such pod
  auto c = CountBudget(pdb, Ptrs(pods), 0, kNow);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->current_healthy, 2);
  std::optional<TimePoint> next;
  json pending = PendingDisruptions(pdb, Ptrs(pods), kNow, &next);
  EXPECT_EQ(pending, json({{"a", "2027-01-15T07:59:30Z"}}));
  ASSERT_TRUE(next);
  EXPECT_EQ(*next - kNow, std::chrono::seconds(90));
}

TEST(BudgetStatus, TheConditionKeepsItsTimeUntilItFlips) {
  json earlier = {{"type", "DisruptionAllowed"},
                  {"status", "False"},
                  {"lastTransitionTime", "2027-01-01T00:00:00Z"},
                  {"reason", "InsufficientPods"},
                  {"message", ""}};
  json pdb = Budget({{"minAvailable", 2}}, {{"conditions", {earlier}}});
  BudgetCounts still{2, 2, 2};
  json status = BudgetStatus(pdb, still, json::object(), kNow);
  EXPECT_EQ(status["conditions"][0]["lastTransitionTime"],
            "2027-01-01T00:00:00Z");
  BudgetCounts more{3, 2, 3};
  status = BudgetStatus(pdb, more, json::object(), kNow);
  EXPECT_EQ(status["conditions"][0]["lastTransitionTime"],
            "2027-01-15T08:00:00Z");
  EXPECT_EQ(status["conditions"][0]["status"], "True");
}

TEST(BudgetStatus, AFailedSyncAllowsNothingAndSaysWhy) {
  json pdb = Budget({{"maxUnavailable", 1}});
  json status = BudgetStatus(pdb, BudgetCounts{}, json::object(), kNow,
                             "found no controller ref for pod \"bare\"");
  EXPECT_EQ(status["disruptionsAllowed"], 0);
  EXPECT_FALSE(status.contains("observedGeneration"));
  EXPECT_EQ(status["conditions"][0]["reason"], "SyncFailed");
  EXPECT_EQ(status["conditions"][0]["message"],
            "found no controller ref for pod \"bare\"");
}

}  // namespace
}  // namespace kmock::controllers::disruption
