#include "controllers/event_recorder.h"

#include <atomic>
#include <cstdio>

#include "common/json_view.h"

namespace kmock::controllers {

namespace {
// The last nanosecond stamp handed out, shared by every recorder.
std::atomic<int64_t> g_last_nanos{0};

// The next name stamp: now in Unix nanoseconds, or one past the last stamp
// handed out if the clock has not moved past it.
int64_t NextStamp(const Clock* clock) {
  int64_t nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      clock->Now().time_since_epoch())
                      .count();
  int64_t prev = g_last_nanos.load();
  int64_t next;
  do {
    next = nanos > prev ? nanos : prev + 1;
  } while (!g_last_nanos.compare_exchange_weak(prev, next));
  return next;
}

std::string EventName(const std::string& object_name, int64_t stamp) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%llx",
                static_cast<unsigned long long>(stamp));
  return object_name + "." + buf;
}

// What one event's write needs; copied into the sink's queue.
struct EventWrite {
  registry::Registry* registry;
  const api::ResourceInfo* events;
  const Clock* clock;  // for a new stamp after a name collision
  json event;          // named after object_name and stamp
  std::string object_name;
  registry::WriteOptions options;

  Status operator()() {
    Status last;
    // A name can still collide with an event written by another process
    // sharing the store; take the next stamp and try again.
    for (int attempt = 0; attempt < 3; ++attempt) {
      if (attempt > 0) {
        event["metadata"]["name"] = EventName(object_name, NextStamp(clock));
      }
      std::string ns = event["metadata"]["namespace"];
      auto r = registry->Create(*events, ns, event, options);
      if (r.ok()) return Status::Ok();
      last = r.status();
      if (last.code() != StatusCode::kAlreadyExists) break;
    }
    return last;
  }
};

}  // namespace

json BuildEvent(const json& involved, const EventSource& source,
                const EventRecord& rec, TimePoint now,
                const std::string& name) {
  const json& md = ObjectAt(involved, "metadata");
  std::string ns = md.value("namespace", "");
  json ref = {{"kind", involved.value("kind", "")},
              {"name", md.value("name", "")},
              {"uid", md.value("uid", "")},
              {"apiVersion", involved.value("apiVersion", "v1")},
              {"resourceVersion", md.value("resourceVersion", "")}};
  if (!ns.empty()) ref["namespace"] = ns;
  if (!rec.field_path.empty()) ref["fieldPath"] = rec.field_path;
  std::string instance = source.reporting_instance.empty()
                             ? source.host
                             : source.reporting_instance;
  json ev = {{"apiVersion", "v1"},
             {"kind", "Event"},
             {"metadata",
              {{"name", name}, {"namespace", ns.empty() ? "default" : ns}}},
             {"involvedObject", ref},
             {"reason", rec.reason},
             {"message", rec.message},
             {"type", rec.type},
             {"reportingComponent", source.component},
             {"reportingInstance", instance}};
  json src = {{"component", source.component}};
  if (!source.host.empty()) src["host"] = source.host;
  ev["source"] = src;
  if (source.events_api) {
    ev["eventTime"] = FormatRfc3339Micro(now);
    ev["firstTimestamp"] = nullptr;
    ev["lastTimestamp"] = nullptr;
    if (!rec.action.empty()) ev["action"] = rec.action;
  } else {
    ev["firstTimestamp"] = FormatRfc3339(now);
    ev["lastTimestamp"] = FormatRfc3339(now);
    ev["count"] = 1;
    ev["eventTime"] = nullptr;
  }
  return ev;
}

EventRecorder::EventRecorder(registry::Registry* registry, const Clock* clock,
                             EventSource source, EventSink* sink)
    : registry_(registry),
      clock_(clock),
      source_(std::move(source)),
      sink_(sink),
      events_(api::Catalog::Get().Find("", "v1", "events")) {}

int64_t EventRecorder::ReserveStamp() const { return NextStamp(clock_); }

Status EventRecorder::Record(const json& involved, const EventRecord& rec,
                             int64_t stamp) {
  if (events_ == nullptr) {
    return InternalError("the events resource is not in the catalog");
  }
  TimePoint now = clock_->Now();
  EventWrite write;
  write.registry = registry_;
  write.events = events_;
  write.clock = clock_;
  write.options.user.name = source_.component == "kubelet"
                                ? "system:node:" + source_.host
                                : "system:kube-scheduler";
  write.options.field_manager = source_.component;
  write.options.typed_in_process = true;
  write.object_name = ObjectAt(involved, "metadata").value("name", "object");
  if (stamp == 0) stamp = ReserveStamp();
  write.event = BuildEvent(involved, source_, rec, now,
                           EventName(write.object_name, stamp));
  if (sink_ == nullptr) return write();
  sink_->Submit(std::move(write));
  return Status::Ok();
}

}  // namespace kmock::controllers
