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

// The same event, judged by what identifies it rather than by its name:
// its object (at any resourceVersion), source, reason and type.
bool SameEvent(const json& a, const json& b) {
  for (const char* k : {"source", "reason", "type"}) {
    if (a.value(k, json()) != b.value(k, json())) return false;
  }
  json ia = a.value("involvedObject", json::object());
  json ib = b.value("involvedObject", json::object());
  ia.erase("resourceVersion");
  ib.erase("resourceVersion");
  return ia == ib;
}

// What one event's write needs; copied into the sink's queue.
struct EventWrite {
  registry::Registry* registry;
  const api::ResourceInfo* events;
  const Clock* clock;  // for a new stamp after a name collision
  json event;          // named after object_name and stamp
  std::string object_name;
  registry::WriteOptions options;
  // A repeat of an event written before (its count is past 1): its count,
  // lastTimestamp and message move on, as the correlator's patch does.
  bool update = false;

  Status operator()() {
    std::string ns = event["metadata"]["namespace"];
    if (update) return Update(ns);
    return Create(ns);
  }

  Status Create(const std::string& ns) {
    Status last;
    // A name can still collide with an event written by another process
    // sharing the store; take the next stamp and try again.
    for (int attempt = 0; attempt < 3; ++attempt) {
      if (attempt > 0) {
        event["metadata"]["name"] = EventName(object_name, NextStamp(clock));
      }
      auto r = registry->Create(*events, ns, event, options);
      if (r.ok()) return Status::Ok();
      last = r.status();
      if (last.code() != StatusCode::kAlreadyExists) break;
      // Our own repeat, written first by another writer thread: done.
      auto there = registry->Get(*events, ns,
                                 event["metadata"]["name"].get<std::string>());
      if (there.ok() && SameEvent(*there, event)) return Status::Ok();
    }
    return last;
  }

  Status Update(const std::string& ns) {
    Status st = CountUp(ns);
    if (st.code() != StatusCode::kNotFound) return st;
    // Gone (expired, deleted) or not written yet: create it as it is now;
    // if its first write landed meanwhile, count that up instead.
    auto c = registry->Create(*events, ns, event, options);
    if (c.ok() || c.status().code() != StatusCode::kAlreadyExists) {
      return c.status();
    }
    return CountUp(ns);
  }

  Status CountUp(const std::string& ns) {
    const int64_t count = event.value("count", int64_t{1});
    auto r = registry->GuaranteedUpdateShared(
        *events, ns, event["metadata"]["name"].get<std::string>(), "",
        [&](json& ev) -> Status {
          // Writer threads may take repeats out of order: never go back.
          if (ev.value("count", int64_t{0}) >= count) return Status::Ok();
          ev["count"] = count;
          ev["lastTimestamp"] = event["lastTimestamp"];
          ev["message"] = event["message"];
          return Status::Ok();
        },
        options);
    return r.status();
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
      events_(registry->catalog().Find("", "v1", "events")) {
  // kube-scheduler's events.k8s.io recorder correlates into series
  // instead; its events are written as they come.
  if (!source_.events_api) {
    correlator_ = std::make_unique<EventCorrelator>(
        [clock](const std::string& object_name) {
          return EventName(object_name, NextStamp(clock));
        });
  }
}

EventRecorder::~EventRecorder() = default;

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
  if (correlator_ != nullptr) {
    CorrelatedEvent c = correlator_->Correlate(std::move(write.event), now);
    if (c.action == CorrelatedEvent::Action::kDrop) return Status::Ok();
    write.update = c.action == CorrelatedEvent::Action::kUpdate;
    write.event = std::move(c.event);
  }
  if (sink_ == nullptr) return write();
  sink_->Submit(std::move(write));
  return Status::Ok();
}

}  // namespace kmock::controllers
