// Records Kubernetes Events about objects through the registry's core/v1
// events resource, in the two shapes real components write:
//
// - legacy (the kubelet's record.EventRecorder): source {component, host},
//   firstTimestamp/lastTimestamp, count 1, reportingComponent and
//   reportingInstance copied from the source.
// - events.k8s.io style (kube-scheduler): eventTime (MicroTime),
//   reportingComponent/reportingInstance, action, no first/last timestamps.
//
// Event names are "<object name>.<hex of the Unix time in ns>", unique in
// the process even when a fake clock stands still (one shared counter).
//
// Legacy events pass through an EventCorrelator first, as client-go's
// broadcaster's do: repeats count up on the first event, ten similar ones
// in ten minutes combine, and a source may say 25 things at once about one
// object, then one per five minutes.
//
// With an EventSink, Record queues the write and returns; without one it
// writes the event before it returns.
//
// Thread safety: Record may be called from any thread.
#ifndef KMOCK_CONTROLLERS_EVENT_RECORDER_H_
#define KMOCK_CONTROLLERS_EVENT_RECORDER_H_

#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/clock.h"
#include "common/status.h"
#include "controllers/event_correlator.h"
#include "controllers/event_sink.h"
#include "registry/registry.h"

namespace kmock::controllers {

using nlohmann::json;

struct EventSource {
  std::string component;           // "kubelet", "default-scheduler"
  std::string host;                // the node, for kubelets
  std::string reporting_instance;  // "" = host, else this
  bool events_api = false;         // events.k8s.io style (eventTime, action)
};

struct EventRecord {
  std::string type;    // Normal, Warning
  std::string reason;  // Scheduled, Pulling, ...
  std::string message;
  std::string field_path;  // involvedObject.fieldPath
  std::string action;      // events.k8s.io action, e.g. "Binding"
};

// The Event object (pure; exposed for tests).
json BuildEvent(const json& involved, const EventSource& source,
                const EventRecord& rec, TimePoint now, const std::string& name);

class EventRecorder {
 public:
  // sink: where to queue the writes (null: write on the calling thread);
  // it must outlive the recorder's last Record.
  EventRecorder(registry::Registry* registry, const Clock* clock,
                EventSource source, EventSink* sink = nullptr);
  ~EventRecorder();

  // stamp: from ReserveStamp, to name an event after something that
  // happened earlier (0: take the next stamp now). With a sink, the
  // status is Ok once the write is queued; failures are logged there.
  Status Record(const json& involved, const EventRecord& rec,
                int64_t stamp = 0);
  // Takes the next name stamp now, for an event recorded a little later
  // that must still sort before events others write in between.
  int64_t ReserveStamp() const;

 private:
  registry::Registry* registry_;
  const Clock* clock_;
  EventSource source_;
  EventSink* sink_;
  const api::ResourceInfo* events_;
  std::unique_ptr<EventCorrelator> correlator_;  // null: events API
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_EVENT_RECORDER_H_
