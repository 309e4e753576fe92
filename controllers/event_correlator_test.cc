#include "controllers/event_correlator.h"

#include <gtest/gtest.h>

#include <map>

#include "api/builtin_catalog.h"
#include "controllers/event_recorder.h"
#include "controllers/event_sink.h"
#include "registry/test_registry.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;
using Action = CorrelatedEvent::Action;

const TimePoint kStart{std::chrono::seconds(1'800'000'000)};

json ReplicaSet() {
  return {{"apiVersion", "apps/v1"},
          {"kind", "ReplicaSet"},
          {"metadata",
           {{"name", "web-7d9"}, {"namespace", "default"}, {"uid", "rs-1"}}}};
}

json Event(const std::string& message, TimePoint now, int n) {
  return BuildEvent(ReplicaSet(), EventSource{"replicaset-controller", "", ""},
                    EventRecord{"Normal", "SuccessfulCreate", message, "", ""},
                    now, "web-7d9.e" + std::to_string(n));
}

class EventCorrelatorTest : public ::testing::Test {
 protected:
  EventCorrelator correlator_{[this](const std::string& object) {
    return object + ".combined" + std::to_string(++combined_);
  }};
  int combined_ = 0;
};

TEST_F(EventCorrelatorTest, RepeatsCountUpOnTheFirstEvent) {
  CorrelatedEvent a =
      correlator_.Correlate(Event("Back-off", kStart, 1), kStart);
  ASSERT_EQ(a.action, Action::kCreate);
  EXPECT_EQ(a.event["count"], 1);
  TimePoint later = kStart + std::chrono::seconds(30);
  CorrelatedEvent b = correlator_.Correlate(Event("Back-off", later, 2), later);
  ASSERT_EQ(b.action, Action::kUpdate);
  EXPECT_EQ(b.event["metadata"]["name"], "web-7d9.e1");
  EXPECT_EQ(b.event["count"], 2);
  EXPECT_EQ(b.event["firstTimestamp"], a.event["firstTimestamp"]);
  EXPECT_EQ(b.event["lastTimestamp"], FormatRfc3339(later));
  CorrelatedEvent c = correlator_.Correlate(Event("Back-off", later, 3), later);
  EXPECT_EQ(c.event["count"], 3);
  EXPECT_EQ(c.event["metadata"]["name"], "web-7d9.e1");
}

TEST_F(EventCorrelatorTest, TheTenthSimilarEventCombinesThemAndCountsOn) {
  for (int i = 1; i <= 9; ++i) {
    CorrelatedEvent e = correlator_.Correlate(
        Event("Created pod: web-7d9-p" + std::to_string(i), kStart, i), kStart);
    ASSERT_EQ(e.action, Action::kCreate) << i;
    EXPECT_EQ(e.event["metadata"]["name"], "web-7d9.e" + std::to_string(i));
  }
  CorrelatedEvent tenth = correlator_.Correlate(
      Event("Created pod: web-7d9-p10", kStart, 10), kStart);
  ASSERT_EQ(tenth.action, Action::kCreate);
  EXPECT_EQ(tenth.event["metadata"]["name"], "web-7d9.combined1");
  EXPECT_EQ(tenth.event["message"],
            "(combined from similar events): Created pod: web-7d9-p10");
  EXPECT_EQ(tenth.event["count"], 1);
  CorrelatedEvent eleventh = correlator_.Correlate(
      Event("Created pod: web-7d9-p11", kStart, 11), kStart);
  ASSERT_EQ(eleventh.action, Action::kUpdate);
  EXPECT_EQ(eleventh.event["metadata"]["name"], "web-7d9.combined1");
  EXPECT_EQ(eleventh.event["count"], 2);
  EXPECT_EQ(eleventh.event["message"],
            "(combined from similar events): Created pod: web-7d9-p11");
  // Ten minutes later the similar ones are forgotten: single events again.
  TimePoint later = kStart + std::chrono::seconds(601);
  EXPECT_EQ(
      correlator_.Correlate(Event("Created pod: web-7d9-p12", later, 12), later)
          .event["metadata"]["name"],
      "web-7d9.e12");
}

TEST_F(EventCorrelatorTest, ASourceSays25ThingsAboutAnObjectThenOnePer5Min) {
  int passed = 0;
  for (int i = 1; i <= 40; ++i) {
    CorrelatedEvent e = correlator_.Correlate(
        Event("Created pod: web-7d9-p" + std::to_string(i), kStart, i), kStart);
    if (e.action != Action::kDrop) ++passed;
  }
  EXPECT_EQ(passed, 25);
  // The dropped ones still counted on the combined event.
  TimePoint later = kStart + std::chrono::seconds(300);
  CorrelatedEvent next = correlator_.Correlate(
      Event("Created pod: web-7d9-p41", later, 41), later);
  ASSERT_EQ(next.action, Action::kUpdate);
  EXPECT_EQ(next.event["count"], 32);  // p10 .. p41
  EXPECT_EQ(
      correlator_.Correlate(Event("Created pod: web-7d9-p42", later, 42), later)
          .action,
      Action::kDrop);
  // Another object has its own allowance.
  json other = Event("Created pod: x", kStart, 43);
  other["involvedObject"]["name"] = "api-5f4";
  other["involvedObject"]["uid"] = "rs-2";
  EXPECT_EQ(correlator_.Correlate(other, later).action, Action::kCreate);
}

// Through a recorder and its sink's writer threads into the store: what
// kubectl describe then lists.
TEST(EventRecorderTest, CorrelatedEventsAsStored) {
  FakeClock clock(kStart);
  Rng rng(1);
  auto storage = registry::testing::OpenMemoryStore();
  ASSERT_NE(storage, nullptr);
  registry::Registry registry(storage.get(), &clock, &rng);
  ASSERT_TRUE(registry::testing::CreateNamespace(&registry, "default").ok());
  const api::ResourceInfo* events =
      api::testing::BuiltinCatalog().Find("", "v1", "events");
  ASSERT_NE(events, nullptr);
  {
    EventSink sink(EventSinkOptions{.writers = 2});
    EventRecorder rs(&registry, &clock,
                     EventSource{"replicaset-controller", "", ""}, &sink);
    for (int i = 1; i <= 40; ++i) {
      ASSERT_TRUE(
          rs.Record(ReplicaSet(),
                    {"Normal", "SuccessfulCreate",
                     "Created pod: web-7d9-p" + std::to_string(i), "", ""})
              .ok());
    }
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata",
                 {{"name", "p"}, {"namespace", "default"}, {"uid", "pod-1"}}}};
    EventRecorder kubelet(&registry, &clock,
                          EventSource{"kubelet", "worker-1", ""}, &sink);
    for (int i = 0; i < 3; ++i) {
      clock.Advance(std::chrono::seconds(10));
      // The object moves on between repeats; the repeat is still the
      // same event (a writer that finds it written by the other one must
      // not write it again under another name).
      pod["metadata"]["resourceVersion"] = std::to_string(100 + i);
      ASSERT_TRUE(kubelet
                      .Record(pod, {"Warning", "BackOff",
                                    "Back-off restarting failed container",
                                    "spec.containers{c}", ""})
                      .ok());
    }
    sink.Flush();
  }
  auto list = registry.List(*events, "default", registry::ListOptions{});
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  std::map<std::string, int64_t> counts;  // message -> count
  for (const auto& ev : (*list)["items"]) {
    ASSERT_EQ(counts.count(ev["message"]), 0u) << ev.dump();
    counts[ev["message"]] = ev["count"];
  }
  // Nine single events, the combined one counted 16 times (25 passed the
  // spam filter), and the repeated back-off once, counted 3 times.
  EXPECT_EQ(counts.size(), 11u);
  EXPECT_EQ(counts["Created pod: web-7d9-p9"], 1);
  EXPECT_EQ(counts.count("Created pod: web-7d9-p10"), 0u);
  EXPECT_EQ(counts["(combined from similar events): Created pod: web-7d9-p25"],
            16);
  EXPECT_EQ(counts["Back-off restarting failed container"], 3);
}

}  // namespace
}  // namespace kmock::controllers
