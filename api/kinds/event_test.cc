#include "api/kinds/event.h"

#include <gtest/gtest.h>

#include "api/builtin_catalog.h"

namespace kmock::api::kinds {
namespace {

TimePoint At(const std::string& ts) {
  TimePoint t;
  EXPECT_TRUE(ParseRfc3339(ts, &t));
  return t;
}

const char kNow[] = "2024-05-01T12:00:00Z";

json CoreEvent() {
  return json::parse(R"({
    "apiVersion": "v1", "kind": "Event",
    "metadata": {"name": "hello.17a", "namespace": "default"},
    "involvedObject": {"kind": "Pod", "namespace": "default", "name": "hello",
                       "uid": "u1", "apiVersion": "v1",
                       "fieldPath": "spec.containers{c}"},
    "reason": "Pulled", "message": "  Pulled image  ",
    "source": {"component": "kubelet", "host": "node-1"},
    "firstTimestamp": "2024-05-01T11:50:00Z",
    "lastTimestamp": "2024-05-01T11:58:00Z",
    "count": 4, "type": "Normal",
    "eventTime": null,
    "reportingComponent": "kubelet", "reportingInstance": "node-1"
  })");
}

TEST(EventTableTest, LegacyEvent) {
  auto cells = testing::RowOf("", "events", CoreEvent(), At(kNow));
  EXPECT_EQ(cells, (std::vector<json>{"2m", "Normal", "Pulled", "pod/hello",
                                      "spec.containers{c}", "kubelet, node-1",
                                      "Pulled image", "10m", 4, "hello.17a"}));
  EXPECT_EQ(testing::ColumnsOf("", "events").size(), cells.size());
}

TEST(EventTableTest, NewStyleEventAndSeries) {
  json ev = json::parse(R"({
    "apiVersion": "events.k8s.io/v1", "kind": "Event",
    "metadata": {"name": "x", "namespace": "default"},
    "eventTime": "2024-05-01T11:59:30.000000Z",
    "reportingController": "default-scheduler",
    "reportingInstance": "sched-1", "action": "Binding",
    "reason": "Scheduled", "regarding": {"kind": "Pod", "name": "p"},
    "note": "Successfully assigned", "type": "Normal"
  })");
  auto cells = testing::RowOf("events.k8s.io", "events", ev, At(kNow));
  EXPECT_EQ(cells[0], "30s");
  EXPECT_EQ(cells[5], "default-scheduler, sched-1");
  EXPECT_EQ(cells[7], "30s");
  EXPECT_EQ(cells[8], 1);
  ev["series"] = {{"count", 7},
                  {"lastObservedTime", "2024-05-01T11:59:55.000000Z"}};
  cells = testing::RowOf("events.k8s.io", "events", ev, At(kNow));
  EXPECT_EQ(cells[0], "5s");
  EXPECT_EQ(cells[8], 7);
  ev["regarding"] = {{"kind", "Node"}};
  EXPECT_EQ(testing::RowOf("events.k8s.io", "events", ev, At(kNow))[3], "node");
}

TEST(EventConversionTest, CoreToEventsV1AndBack) {
  json core = CoreEvent();
  json ev = CoreEventToEventsV1(core);
  EXPECT_EQ(ev["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(ev["regarding"], core["involvedObject"]);
  EXPECT_EQ(ev["note"], core["message"]);
  EXPECT_EQ(ev["reportingController"], "kubelet");
  EXPECT_EQ(ev["reportingInstance"], "node-1");
  EXPECT_EQ(ev["deprecatedSource"], core["source"]);
  EXPECT_EQ(ev["deprecatedFirstTimestamp"], core["firstTimestamp"]);
  EXPECT_EQ(ev["deprecatedLastTimestamp"], core["lastTimestamp"]);
  EXPECT_EQ(ev["deprecatedCount"], 4);
  EXPECT_TRUE(ev["eventTime"].is_null());
  EXPECT_FALSE(ev.contains("message"));
  EXPECT_EQ(EventsV1ToCoreEvent(ev), core);
}

TEST(EventConversionTest, EventsV1ToCoreAndBack) {
  json ev = json::parse(R"({
    "apiVersion": "events.k8s.io/v1", "kind": "Event",
    "metadata": {"name": "x", "namespace": "default"},
    "eventTime": "2024-05-01T11:59:30.000000Z",
    "series": {"count": 2, "lastObservedTime": "2024-05-01T11:59:40.000000Z"},
    "reportingController": "c", "reportingInstance": "i",
    "action": "A", "reason": "R",
    "regarding": {"kind": "Pod", "name": "p", "namespace": "default"},
    "related": {"kind": "Node", "name": "n"},
    "note": "hi", "type": "Warning",
    "deprecatedSource": {},
    "deprecatedFirstTimestamp": null, "deprecatedLastTimestamp": null
  })");
  json core = EventsV1ToCoreEvent(ev);
  EXPECT_EQ(core["involvedObject"], ev["regarding"]);
  EXPECT_EQ(core["message"], "hi");
  EXPECT_EQ(core["reportingComponent"], "c");
  EXPECT_EQ(core["source"], json::object());
  EXPECT_EQ(core["related"], ev["related"]);
  EXPECT_EQ(core["series"], ev["series"]);
  EXPECT_FALSE(core.contains("count"));
  EXPECT_EQ(CoreEventToEventsV1(core), ev);
}

TEST(EventFieldsTest, BothForms) {
  json core = CoreEvent();
  std::map<std::string, std::string> got;
  for (const auto& f : CoreEventSelectableFields()) got[f.name] = f.value(core);
  EXPECT_EQ(got["involvedObject.kind"], "Pod");
  EXPECT_EQ(got["involvedObject.name"], "hello");
  EXPECT_EQ(got["involvedObject.fieldPath"], "spec.containers{c}");
  EXPECT_EQ(got["reason"], "Pulled");
  EXPECT_EQ(got["source"], "kubelet");
  EXPECT_EQ(got["type"], "Normal");
  json ev = CoreEventToEventsV1(core);
  for (const auto& f : EventsV1SelectableFields()) {
    EXPECT_EQ(f.value(ev), got[f.name]) << f.name;
  }
}

TEST(EventValidationTest, CoreNamespaceMismatch) {
  json e = CoreEvent();
  e["involvedObject"]["namespace"] = "other";
  FieldErrors errs;
  CoreEventStrategy()->Validate(e, &errs);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs.causes()[0].field, "involvedObject.namespace");
  EXPECT_EQ(errs.causes()[0].message,
            "Invalid value: \"other\": does not match event.namespace");
}

TEST(EventValidationTest, EventsV1Strict) {
  json ev = {
      {"apiVersion", "events.k8s.io/v1"},
      {"kind", "Event"},
      {"metadata", {{"name", "x"}, {"namespace", "default"}}},
      {"regarding", {{"kind", "Pod"}, {"name", "p"}, {"namespace", "default"}}},
      {"type", "Odd"},
      {"deprecatedCount", 3}};
  FieldErrors errs;
  EventsV1Strategy()->Validate(ev, &errs);
  std::vector<std::string> fields;
  for (const auto& c : errs.causes()) fields.push_back(c.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"eventTime", "type", "count"}));
  ev["eventTime"] = "2024-05-01T11:59:30.000000Z";
  ev["type"] = "Normal";
  ev.erase("deprecatedCount");
  errs = FieldErrors();
  EventsV1Strategy()->Validate(ev, &errs);
  fields.clear();
  for (const auto& c : errs.causes()) fields.push_back(c.field);
  // An empty controller is both required and not a qualified name (two
  // reasons: empty, and not matching the pattern), as upstream reports it.
  EXPECT_EQ(fields, (std::vector<std::string>{
                        "reportingController", "reportingController",
                        "reportingController", "reportingInstance", "action",
                        "reason"}));
}

}  // namespace
}  // namespace kmock::api::kinds
