// Events, served twice over one store: core/v1 Event (the stored form, under
// /registry/events/) and events.k8s.io/v1 Event (converted on the way in and
// out, field for field as kube-apiserver's conversion does:
// regarding<->involvedObject, note<->message,
// reportingController<->reportingComponent, deprecatedSource<->source,
// deprecatedFirstTimestamp/LastTimestamp/Count<->firstTimestamp/
// lastTimestamp/count; eventTime, series, related, action, reason, type and
// reportingInstance carry over by name).
//
// Thread safety: pure functions and stateless strategies; safe from any
// thread.
#ifndef KMOCK_API_KINDS_EVENT_H_
#define KMOCK_API_KINDS_EVENT_H_

#include <vector>

#include "api/resource.h"

namespace kmock::api::kinds {

// Conversions between the two served forms (apiVersion and kind included).
json CoreEventToEventsV1(const json& core);
json EventsV1ToCoreEvent(const json& ev);

// The computed cells of a core/v1 event, one per column (named cells
// "event..."); events.k8s.io events are printed from their stored core form.
json EventLastSeenCell(const json& core, TimePoint now);
json EventFirstSeenCell(const json& core, TimePoint now);
json EventCountCell(const json& core, TimePoint now);
json EventObjectCell(const json& core, TimePoint now);
json EventSourceCell(const json& core, TimePoint now);
json EventMessageCell(const json& core, TimePoint now);

std::vector<SelectableField> CoreEventSelectableFields();
// Same field names, evaluated on the events.k8s.io/v1 form.
std::vector<SelectableField> EventsV1SelectableFields();

const Strategy* CoreEventStrategy();
const Strategy* EventsV1Strategy();

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_EVENT_H_
