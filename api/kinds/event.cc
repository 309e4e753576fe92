#include "api/kinds/event.h"

#include <algorithm>
#include <cctype>

#include "api/kinds/util.h"
#include "api/validation.h"

namespace kmock::api::kinds {

namespace {

const json& Or(const json& obj, const char* key, const json& def) {
  if (obj.is_object()) {
    auto it = obj.find(key);
    if (it != obj.end()) return *it;
  }
  return def;
}

void CopyIfSet(const json& from, const char* from_key, json& to,
               const char* to_key) {
  if (!from.is_object()) return;
  auto it = from.find(from_key);
  if (it == from.end() || it->is_null()) return;
  if (it->is_string() && it->get_ref<const std::string&>().empty()) return;
  if (it->is_number() && it->get<int64_t>() == 0) return;
  to[to_key] = *it;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r\f\v");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n\r\f\v");
  return s.substr(b, e - b + 1);
}

bool IsZero(const json& v) {
  return v.is_null() || (v.is_string() && v.get<std::string>().empty());
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return s;
}

// kube-apiserver's legacy event checks; `reporting_field` names the
// reporting controller field as the request's API version spells it.
void ValidateLegacyEvent(const json& e, const std::string& reporting_field,
                         FieldErrors* errs) {
  std::string ns = Str(e, {"metadata", "namespace"});
  std::string involved_ns = Str(e, {"involvedObject", "namespace"});
  if (IsZero(Or(e, "eventTime", json()))) {
    if (involved_ns.empty()) {
      if (!ns.empty() && ns != "default") {
        errs->Invalid("involvedObject.namespace", involved_ns,
                      "does not match event.namespace");
      }
    } else if (ns != involved_ns) {
      errs->Invalid("involvedObject.namespace", involved_ns,
                    "does not match event.namespace");
    }
  } else {
    if (involved_ns.empty() && ns != "default" && ns != "kube-system") {
      errs->Invalid("involvedObject.namespace", involved_ns,
                    "does not match event.namespace");
    }
    std::string controller = Str(e, {"reportingComponent"});
    if (controller.empty()) errs->Required(reporting_field);
    ValidateQualifiedName(controller, reporting_field, errs);
    std::string instance = Str(e, {"reportingInstance"});
    if (instance.empty()) errs->Required("reportingInstance");
    if (instance.size() > 128) {
      errs->Invalid("reportingInstance", "", "can have at most 128 characters");
    }
    std::string action = Str(e, {"action"});
    if (action.empty()) errs->Required("action");
    if (action.size() > 128) {
      errs->Invalid("action", "", "can have at most 128 characters");
    }
    std::string reason = Str(e, {"reason"});
    if (reason.empty()) errs->Required("reason");
    if (reason.size() > 128) {
      errs->Invalid("reason", "", "can have at most 128 characters");
    }
    if (Str(e, {"message"}).size() > 1024) {
      errs->Invalid("message", "", "can have at most 1024 characters");
    }
  }
  for (const std::string& m : IsDNS1123Subdomain(ns)) {
    errs->Invalid("namespace", ns, m);
  }
}

void ValidateSeries(const json& e, FieldErrors* errs) {
  const json* series = Find(e, {"series"});
  if (!series || !series->is_object()) return;
  if (Int(*series, {"count"}) < 2) {
    errs->Invalid("series.count", "", "should be at least 2");
  }
  if (Str(*series, {"lastObservedTime"}).empty()) {
    errs->Required("series.lastObservedTime");
  }
}

// The events.k8s.io/v1 rules, on the core form.
void ValidateStrictEvent(const json& e, FieldErrors* errs) {
  ValidateSeries(e, errs);
  if (IsZero(Or(e, "eventTime", json()))) errs->Required("eventTime");
  std::string type = Str(e, {"type"});
  if (type != "Normal" && type != "Warning") {
    errs->Invalid("type", "", "has invalid value: " + type);
  }
  if (!IsZero(Or(e, "firstTimestamp", json()))) {
    errs->Invalid("firstTimestamp", "", "needs to be unset");
  }
  if (!IsZero(Or(e, "lastTimestamp", json()))) {
    errs->Invalid("lastTimestamp", "", "needs to be unset");
  }
  if (Int(e, {"count"}) != 0) errs->Invalid("count", "", "needs to be unset");
  if (!Str(e, {"source", "component"}).empty() ||
      !Str(e, {"source", "host"}).empty()) {
    errs->Invalid("source", "", "needs to be unset");
  }
}

class CoreEventStrategyImpl : public Strategy {
 public:
  void Validate(const json& obj, FieldErrors* errs) const override {
    ValidateLegacyEvent(obj, "reportingComponent", errs);
  }
  void ValidateUpdate(const json& obj, const json& /*old*/,
                      FieldErrors* errs) const override {
    ValidateLegacyEvent(obj, "reportingComponent", errs);
  }
};

class EventsV1StrategyImpl : public Strategy {
 public:
  void Validate(const json& obj, FieldErrors* errs) const override {
    json core = EventsV1ToCoreEvent(obj);
    ValidateLegacyEvent(core, "reportingController", errs);
    ValidateStrictEvent(core, errs);
  }
  void ValidateUpdate(const json& obj, const json& old,
                      FieldErrors* errs) const override {
    json core = EventsV1ToCoreEvent(obj);
    json old_core = EventsV1ToCoreEvent(old);
    ValidateLegacyEvent(core, "reportingController", errs);
    static const std::pair<const char*, const char*> kImmutable[] = {
        {"involvedObject", "involvedObject"},
        {"reason", "reason"},
        {"message", "message"},
        {"source", "source"},
        {"firstTimestamp", "firstTimestamp"},
        {"lastTimestamp", "lastTimestamp"},
        {"count", "count"},
        {"type", "type"},
        {"eventTime", "eventTime"},
        {"action", "action"},
        {"related", "related"},
        {"reportingComponent", "reportingController"},
        {"reportingInstance", "reportingInstance"}};
    for (const auto& [key, path] : kImmutable) {
      json nv = Or(core, key, json());
      json ov = Or(old_core, key, json());
      if (nv != ov) errs->Immutable(path, nv);
    }
    ValidateSeries(core, errs);
  }
};

bool IsEventsV1(const json& obj) {
  return Str(obj, {"apiVersion"}) == "events.k8s.io/v1" ||
         obj.contains("regarding") || obj.contains("note");
}

}  // namespace

json CoreEventToEventsV1(const json& in) {
  const json kEmptyObject = json::object();
  json out = {{"apiVersion", "events.k8s.io/v1"}, {"kind", "Event"}};
  out["metadata"] = Or(in, "metadata", kEmptyObject);
  out["eventTime"] = Or(in, "eventTime", json());
  CopyIfSet(in, "series", out, "series");
  CopyIfSet(in, "reportingComponent", out, "reportingController");
  CopyIfSet(in, "reportingInstance", out, "reportingInstance");
  CopyIfSet(in, "action", out, "action");
  CopyIfSet(in, "reason", out, "reason");
  out["regarding"] = Or(in, "involvedObject", kEmptyObject);
  CopyIfSet(in, "related", out, "related");
  CopyIfSet(in, "message", out, "note");
  CopyIfSet(in, "type", out, "type");
  out["deprecatedSource"] = Or(in, "source", kEmptyObject);
  out["deprecatedFirstTimestamp"] = Or(in, "firstTimestamp", json());
  out["deprecatedLastTimestamp"] = Or(in, "lastTimestamp", json());
  CopyIfSet(in, "count", out, "deprecatedCount");
  return out;
}

json EventsV1ToCoreEvent(const json& in) {
  const json kEmptyObject = json::object();
  json out = {{"apiVersion", "v1"}, {"kind", "Event"}};
  out["metadata"] = Or(in, "metadata", kEmptyObject);
  out["involvedObject"] = Or(in, "regarding", kEmptyObject);
  CopyIfSet(in, "reason", out, "reason");
  CopyIfSet(in, "note", out, "message");
  out["source"] = Or(in, "deprecatedSource", kEmptyObject);
  out["firstTimestamp"] = Or(in, "deprecatedFirstTimestamp", json());
  out["lastTimestamp"] = Or(in, "deprecatedLastTimestamp", json());
  CopyIfSet(in, "deprecatedCount", out, "count");
  CopyIfSet(in, "type", out, "type");
  out["eventTime"] = Or(in, "eventTime", json());
  CopyIfSet(in, "series", out, "series");
  CopyIfSet(in, "action", out, "action");
  CopyIfSet(in, "related", out, "related");
  out["reportingComponent"] = Or(in, "reportingController", json(""));
  out["reportingInstance"] = Or(in, "reportingInstance", json(""));
  return out;
}

namespace {

std::string FirstSeen(const json& e, TimePoint now) {
  std::string first_ts = Str(e, {"firstTimestamp"});
  return first_ts.empty() ? Since(Str(e, {"eventTime"}), now)
                          : Since(first_ts, now);
}

}  // namespace

json EventLastSeenCell(const json& e, TimePoint now) {
  const json* series = Find(e, {"series"});
  if (series && series->is_object()) {
    return Since(Str(*series, {"lastObservedTime"}), now);
  }
  std::string last_ts = Str(e, {"lastTimestamp"});
  return last_ts.empty() ? FirstSeen(e, now) : Since(last_ts, now);
}

json EventFirstSeenCell(const json& e, TimePoint now) {
  return FirstSeen(e, now);
}

json EventCountCell(const json& e, TimePoint /*now*/) {
  const json* series = Find(e, {"series"});
  if (series && series->is_object()) return Int(*series, {"count"});
  int64_t count = Int(e, {"count"});
  return count == 0 ? 1 : count;  // singleton events carry no count
}

json EventObjectCell(const json& e, TimePoint /*now*/) {
  std::string kind = Lower(Str(e, {"involvedObject", "kind"}));
  std::string name = Str(e, {"involvedObject", "name"});
  return name.empty() ? kind : kind + "/" + name;
}

json EventSourceCell(const json& e, TimePoint /*now*/) {
  std::string component = Str(e, {"source", "component"});
  if (component.empty()) component = Str(e, {"reportingComponent"});
  std::string host = Str(e, {"source", "host"});
  if (host.empty()) host = Str(e, {"reportingInstance"});
  return host.empty() ? component : component + ", " + host;
}

json EventMessageCell(const json& e, TimePoint /*now*/) {
  return Trim(Str(e, {"message"}));
}

std::vector<SelectableField> CoreEventSelectableFields() {
  std::vector<SelectableField> out;
  for (const char* f : {"kind", "namespace", "name", "uid", "apiVersion",
                        "resourceVersion", "fieldPath"}) {
    out.push_back({std::string("involvedObject.") + f,
                   [f](const json& e) {
                     return Str(e, {"involvedObject", f});
                   },
                   {"involvedObject"}});
  }
  out.push_back(
      {"reason", [](const json& e) { return Str(e, {"reason"}); }, {"reason"}});
  out.push_back({"reportingComponent",
                 [](const json& e) { return Str(e, {"reportingComponent"}); },
                 {"reportingComponent"}});
  out.push_back({"source",
                 [](const json& e) {
                   std::string s = Str(e, {"source", "component"});
                   return s.empty() ? Str(e, {"reportingComponent"}) : s;
                 },
                 {"source", "reportingComponent"}});
  out.push_back(
      {"type", [](const json& e) { return Str(e, {"type"}); }, {"type"}});
  return out;
}

std::vector<SelectableField> EventsV1SelectableFields() {
  std::vector<SelectableField> out = CoreEventSelectableFields();
  for (SelectableField& f : out) {
    auto core_fn = f.value;
    f.value = [core_fn](const json& obj) {
      return IsEventsV1(obj) ? core_fn(EventsV1ToCoreEvent(obj)) : core_fn(obj);
    };
    f.reads.clear();  // the conversion reads the whole object
  }
  return out;
}

const Strategy* CoreEventStrategy() {
  static const CoreEventStrategyImpl kStrategy;
  return &kStrategy;
}

const Strategy* EventsV1Strategy() {
  static const EventsV1StrategyImpl kStrategy;
  return &kStrategy;
}

}  // namespace kmock::api::kinds
