#include "controllers/event_recorder.h"

#include <cstdio>

namespace kmock::controllers {

json BuildEvent(const json& involved, const EventSource& source,
                const EventRecord& rec, TimePoint now, const std::string& name) {
  const json& md = involved.value("metadata", json::object());
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
                             EventSource source)
    : registry_(registry),
      clock_(clock),
      source_(std::move(source)),
      events_(api::Catalog::Get().Find("", "v1", "events")) {}

std::string EventRecorder::NextName(const std::string& object_name,
                                    TimePoint now) {
  int64_t nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      now.time_since_epoch())
                      .count();
  int64_t prev = last_nanos_.load();
  int64_t next;
  do {
    next = nanos > prev ? nanos : prev + 1;
  } while (!last_nanos_.compare_exchange_weak(prev, next));
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%llx", static_cast<unsigned long long>(next));
  return object_name + "." + buf;
}

Status EventRecorder::Record(const json& involved, const EventRecord& rec) {
  if (events_ == nullptr) {
    return InternalError("the events resource is not in the catalog");
  }
  TimePoint now = clock_->Now();
  std::string name = NextName(
      involved.value("metadata", json::object()).value("name", "object"), now);
  json ev = BuildEvent(involved, source_, rec, now, name);
  std::string ns = ev["metadata"]["namespace"];
  registry::WriteOptions wo;
  wo.user.name = source_.component == "kubelet"
                     ? "system:node:" + source_.host
                     : "system:kube-scheduler";
  wo.field_manager = source_.component;
  auto r = registry_->Create(*events_, ns, std::move(ev), wo);
  return r.ok() ? Status::Ok() : r.status();
}

}  // namespace kmock::controllers
