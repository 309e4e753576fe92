// Golden tests for the lifecycle engine: each tests/stages/<name>.input.json
// holds {now, pod, runtime}; the test picks the default stage that matches,
// applies it and renders the status, and compares {stage, events, runtime,
// status} with <name>.output.json, where "<Now>" stands for `now`.
// KMOCK_UPDATE_GOLDEN=1 rewrites the outputs (review them before keeping).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "controllers/lifecycle/engine.h"
#include "controllers/lifecycle/stage.h"

namespace kmock::controllers::lifecycle {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path StagesDir() {
  return fs::path(__FILE__).parent_path().parent_path() / "tests" / "stages";
}

std::string ReplaceAll(std::string s, const std::string& from,
                       const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos;
       p = s.find(from, p + to.size())) {
    s.replace(p, from.size(), to);
  }
  return s;
}

json RunCase(const json& input) {
  TimePoint now;
  EXPECT_TRUE(ParseRfc3339(input["now"], &now));
  auto rt = FromJson(input["runtime"]);
  EXPECT_TRUE(rt.ok()) << rt.status().ToString();
  auto stages = DefaultStages(StagePacing{});
  View view = BuildView(input["pod"], *rt);
  const Stage* stage = MatchStage(stages, view);
  json out = {{"stage", stage ? stage->name : ""}};
  if (stage == nullptr) return out;
  auto events = Apply(stage->action, &*rt, now);
  out["events"] = json::array();
  for (const auto& e : events) {
    out["events"].push_back({{"type", e.type},
                             {"reason", e.reason},
                             {"message", e.message},
                             {"fieldPath", e.field_path}});
  }
  out["runtime"] = ToJson(*rt);
  out["status"] = RenderStatus(input["pod"], *rt, now);
  // Stand-in for the current time.
  return json::parse(
      ReplaceAll(out.dump(), "\"" + FormatRfc3339(now) + "\"", "\"<Now>\""));
}

TEST(LifecycleGoldenTest, Stages) {
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(StagesDir())) {
    std::string name = entry.path().filename().string();
    const std::string suffix = ".input.json";
    if (name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    ++cases;
    std::string base = name.substr(0, name.size() - suffix.size());
    std::ifstream in(entry.path());
    json input = json::parse(in);
    json actual = RunCase(input);
    fs::path out_path = StagesDir() / (base + ".output.json");
    if (std::getenv("KMOCK_UPDATE_GOLDEN") != nullptr) {
      std::ofstream(out_path) << actual.dump(2) << "\n";
      continue;
    }
    std::ifstream want_in(out_path);
    ASSERT_TRUE(want_in.good()) << "missing " << out_path;
    json want = json::parse(want_in);
    EXPECT_EQ(actual, want) << base << "\nactual:\n" << actual.dump(2);
  }
  EXPECT_GE(cases, 4);
}

TEST(StageTest, SelectorOperators) {
  json pod = {{"metadata", {{"name", "p"}}}};
  View view;
  view.pod = &pod;
  view.runtime = {
      {"containers", json::array({{{"step", "Running"}},
                                  {{"step", "Pulling"}, {"init", true}}})}};
  view.container = 1;
  EXPECT_TRUE(Matches({"pod.metadata.name", "Exists", {}}, view));
  EXPECT_TRUE(
      Matches({"pod.metadata.deletionTimestamp", "DoesNotExist", {}}, view));
  EXPECT_TRUE(Matches({"container.step", "In", {"Waiting", "Pulling"}}, view));
  EXPECT_FALSE(Matches({"container.step", "NotIn", {"Pulling"}}, view));
  EXPECT_TRUE(Matches({"container.init", "In", {"true"}}, view));
  EXPECT_TRUE(Matches({"runtime.killed", "NotIn", {"true"}}, view));
  EXPECT_TRUE(Matches({"runtime.containers", "Exists", {}}, view));
  EXPECT_FALSE(Matches({"pod.metadata.name.x", "Exists", {}}, view));
  EXPECT_FALSE(Matches({"other.step", "Exists", {}}, view));
  view.container = -1;  // no container's turn: no "container" in the view
  EXPECT_FALSE(Matches({"container.step", "Exists", {}}, view));
}

// A view reads the fields the stages use straight from the record: what
// it finds is what the record's JSON form holds, for every state.
TEST(StageTest, RecordFieldsAgreeWithTheRecordsJson) {
  json pod = {{"metadata", {{"name", "p"}}}};
  PodRuntime rt;
  rt.containers.resize(2);
  const std::vector<std::string> paths = {
      "runtime.sandbox",      "runtime.ready",
      "runtime.killed",       "container",
      "container.step",       "container.waitingReason",
      "container.pullReason", "container.retryInMs",
      "container.name",       "runtime.containers",
      "runtime.podIP"};
  auto check = [&](const char* state) {
    View fast = BuildView(pod, rt);
    View slow;
    slow.pod = &pod;
    slow.runtime = ToJson(rt);
    slow.container = rt.CurrentContainer();
    for (const auto& path : paths) {
      bool exists = Matches({path, "Exists", {}}, slow);
      EXPECT_EQ(Matches({path, "Exists", {}}, fast), exists) << state << path;
      if (!exists || path == "container" || path == "runtime.containers")
        continue;
      const json* v = &slow.runtime;
      std::string rest = path.substr(path.find('.') + 1);
      if (path.rfind("container.", 0) == 0)
        v = &slow.runtime["containers"][slow.container];
      const json& value = (*v)[rest];
      std::string text =
          value.is_string() ? value.get<std::string>() : value.dump();
      EXPECT_TRUE(Matches({path, "In", {text}}, fast)) << state << path;
    }
  };
  check("new: ");
  rt.sandbox = true;
  rt.pod_ip = "10.244.1.5";
  rt.containers[0].step = Step::kPullFailed;
  rt.containers[0].pull_reason = "ErrImagePull";
  rt.containers[0].pull_error = "not found";
  rt.containers[0].waiting_reason = "ErrImagePull";
  rt.containers[0].retry_in_ms = 10000;
  check("pull failed: ");
  for (auto& c : rt.containers) c.step = Step::kRunning;
  rt.ready = true;
  check("running: ");
  rt.killed = true;
  check("killed: ");
}

TEST(StageTest, DelayAndJitter) {
  Stage s{"x", {}, std::chrono::milliseconds(1000), 0.2, Action::kMarkReady,
          ""};
  EXPECT_EQ(StageDelay(s, nullptr).count(), 1000);
  Rng rng(3);
  bool varied = false;
  for (int i = 0; i < 50; ++i) {
    auto d = StageDelay(s, &rng).count();
    EXPECT_GE(d, 800);
    EXPECT_LE(d, 1200);
    if (d != 1000) varied = true;
  }
  EXPECT_TRUE(varied);
  s.delay = std::chrono::milliseconds(0);
  EXPECT_EQ(StageDelay(s, &rng).count(), 0);
}

TEST(StageTest, ParseStages) {
  auto ok = ParseStages(
      json::parse(R"([{"name": "slow-start", "action": "StartContainer",
      "delayMs": 500, "selector": [{"path": "container.step", "op": "In", "values": ["Created"]}]}])"));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0].delay.count(), 500);
  EXPECT_EQ((*ok)[0].action, Action::kStartContainer);
  auto bad =
      ParseStages(json::parse(R"([{"name": "x", "action": "Explode"}])"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "stages[0].action: unknown action \"Explode\"");
}

TEST(EngineTest, GoDurations) {
  EXPECT_EQ(GoDurationMs(1200), "1.2s");
  EXPECT_EQ(GoDurationMs(512), "512ms");
  EXPECT_EQ(GoDurationMs(2000), "2s");
  EXPECT_EQ(GoDurationMs(61005), "1m1.005s");
  EXPECT_EQ(GoDurationMs(0), "0s");
}

TEST(EngineTest, InitContainersRunToCompletionFirst) {
  PodRuntime rt;
  rt.sandbox = true;
  rt.containers.resize(2);
  rt.containers[0].name = "init";
  rt.containers[0].init = true;
  rt.containers[1].name = "app";
  EXPECT_EQ(rt.CurrentContainer(), 0);
  TimePoint now = std::chrono::system_clock::from_time_t(1700000000);
  for (Action a : {Action::kPullImage, Action::kImagePulled,
                   Action::kCreateContainer, Action::kStartContainer}) {
    Apply(a, &rt, now);
  }
  EXPECT_EQ(rt.CurrentContainer(), 0);  // running, not yet complete
  Apply(Action::kCompleteInit, &rt, now);
  EXPECT_EQ(rt.containers[0].reason, "Completed");
  EXPECT_EQ(rt.CurrentContainer(), 1);
  json pod = {{"spec",
               {{"initContainers", {{{"name", "init"}}}},
                {"containers", {{{"name", "app"}}}}}}};
  json st = RenderStatus(pod, rt, now);
  EXPECT_EQ(st["initContainerStatuses"][0]["state"]["terminated"]["reason"],
            "Completed");
  EXPECT_EQ(st["containerStatuses"][0]["state"]["waiting"]["reason"],
            "ContainerCreating");
  EXPECT_EQ(st["phase"], "Pending");
}

}  // namespace
}  // namespace kmock::controllers::lifecycle
