#include "registry/admission/limit_ranger.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "common/json_view.h"
#include "registry/admission/quota_usage.h"
#include "registry/api_errors.h"
#include "registry/registry.h"

namespace kmock::registry {

using nlohmann::json;

namespace {

constexpr char kAnnotation[] = "kubernetes.io/limit-ranger";

std::string Text(const json& q) {
  if (q.is_string()) return q.get<std::string>();
  return q.dump();
}

// A resource list as amounts, keeping how each was written.
struct Amount {
  int64_t milli = 0;
  std::string text;
};
using Amounts = std::map<std::string, Amount>;

Amounts AmountsOf(const json& list) {
  Amounts out;
  if (!list.is_object()) return out;
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (auto milli = QuantityMilli(it.value()))
      out[it.key()] = Amount{*milli, Text(it.value())};
  }
  return out;
}

void AddAmounts(Amounts& to, const Amounts& more) {
  for (const auto& [name, amount] : more) to[name].milli += amount.milli;
}

void MaxAmounts(Amounts& to, const Amounts& other) {
  for (const auto& [name, amount] : other) {
    auto it = to.find(name);
    if (it == to.end() || amount.milli > it->second.milli) to[name] = amount;
  }
}

// A pod's total `kind` ("requests" or "limits") as kube-apiserver's
// LimitRanger counts it: the containers' sum, sidecars (init containers
// that restart Always) added to it, and at least what any other init
// container needs beside the sidecars started before it.
Amounts PodSum(const json& spec, const char* kind) {
  auto of = [&](const json& c) {
    return AmountsOf(ValueAt(ValueAt(c, "resources"), kind));
  };
  Amounts out;
  for (const json& c : ArrayAt(spec, "containers")) AddAmounts(out, of(c));
  Amounts sidecars, init;
  for (const json& c : ArrayAt(spec, "initContainers")) {
    Amounts need = of(c);
    if (StringAt(c, "restartPolicy") == "Always") {
      AddAmounts(out, need);
      AddAmounts(sidecars, need);
      need = sidecars;
    } else {
      AddAmounts(need, sidecars);
    }
    MaxAmounts(init, need);
  }
  MaxAmounts(out, init);
  for (auto& [name, amount] : out)
    amount.text = FormatQuantity(name, amount.milli);
  return out;
}

// What requests and limits break of one LimitRange item of `type`.
// request_only: the type has requests only (a claim's storage), so max
// is held against the request and there is no ratio.
void Check(const std::string& type, const json& item, const Amounts& requests,
           const Amounts& limits, std::vector<std::string>* out,
           bool request_only = false) {
  const std::string per = " usage per " + type + " is ";
  for (const auto& [name, min] : AmountsOf(ValueAt(item, "min"))) {
    auto req = requests.find(name);
    auto lim = limits.find(name);
    if (req == requests.end()) {
      out->push_back("minimum " + name + per + min.text +
                     ".  No request is specified");
    } else if (req->second.milli < min.milli) {
      out->push_back("minimum " + name + per + min.text + ", but request is " +
                     req->second.text);
    } else if (lim != limits.end() && lim->second.milli < min.milli) {
      out->push_back("minimum " + name + per + min.text + ", but limit is " +
                     lim->second.text);
    }
  }
  for (const auto& [name, max] : AmountsOf(ValueAt(item, "max"))) {
    auto req = requests.find(name);
    auto lim = limits.find(name);
    if (request_only) {
      if (req == requests.end()) {
        out->push_back("maximum " + name + per + max.text +
                       ".  No request is specified");
      } else if (req->second.milli > max.milli) {
        out->push_back("maximum " + name + per + max.text +
                       ", but request is " + req->second.text);
      }
      continue;
    }
    if (lim == limits.end()) {
      out->push_back("maximum " + name + per + max.text +
                     ".  No limit is specified");
    } else if (lim->second.milli > max.milli) {
      out->push_back("maximum " + name + per + max.text + ", but limit is " +
                     lim->second.text);
    } else if (req != requests.end() && req->second.milli > max.milli) {
      out->push_back("maximum " + name + per + max.text + ", but request is " +
                     req->second.text);
    }
  }
  if (request_only) return;
  for (const auto& [name, ratio] :
       AmountsOf(ValueAt(item, "maxLimitRequestRatio"))) {
    auto req = requests.find(name);
    auto lim = limits.find(name);
    const std::string head =
        name + " max limit to request ratio per " + type + " is " + ratio.text;
    if (req == requests.end() || req->second.milli == 0) {
      out->push_back(head + ", but no request is specified or request is 0");
    } else if (lim == limits.end() || lim->second.milli == 0) {
      out->push_back(head + ", but no limit is specified or limit is 0");
    } else {
      const double observed =
          static_cast<double>(lim->second.milli) / req->second.milli;
      if (observed * 1000 > static_cast<double>(ratio.milli)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%f", observed);
        out->push_back(head + ", but provided ratio is " + buf);
      }
    }
  }
}

}  // namespace

void ApplyLimitRangeDefaults(const json& range, json& pod) {
  json defaults_request = json::object(), defaults_limit = json::object();
  for (const json& item : ValueAt(ValueAt(range, "spec"), "limits")) {
    if (ValueAt(item, "type") != "Container") continue;
    if (ValueAt(item, "defaultRequest").is_object())
      defaults_request.update(item["defaultRequest"]);
    if (ValueAt(item, "default").is_object())
      defaults_limit.update(item["default"]);
  }
  if (defaults_request.empty() && defaults_limit.empty()) return;
  std::vector<std::string> notes;
  for (const char* list : {"initContainers", "containers"}) {
    auto containers = pod["spec"].find(list);
    if (containers == pod["spec"].end() || !containers->is_array()) continue;
    for (json& c : *containers) {
      if (!c.is_object()) continue;
      std::vector<std::string> set_requests, set_limits;
      auto fill = [&](const json& defaults, const char* kind,
                      std::vector<std::string>* set) {
        for (auto it = defaults.begin(); it != defaults.end(); ++it) {
          json& amounts = c["resources"][kind];
          if (!amounts.is_object()) amounts = json::object();
          if (amounts.contains(it.key())) continue;
          amounts[it.key()] = it.value();
          set->push_back(it.key());
        }
      };
      fill(defaults_limit, "limits", &set_limits);
      fill(defaults_request, "requests", &set_requests);
      const std::string name =
          ValueAt(c, "name").is_string() ? c["name"].get<std::string>() : "";
      auto note = [&](std::vector<std::string> set, const char* what) {
        if (set.empty()) return;
        std::sort(set.begin(), set.end());
        std::string joined;
        for (const auto& s : set) joined += (joined.empty() ? "" : ", ") + s;
        notes.push_back(joined + " " + what + " for container " + name);
      };
      note(set_requests, "request");
      note(set_limits, "limit");
    }
  }
  if (notes.empty()) return;
  std::string value = "LimitRanger plugin set: ";
  for (size_t i = 0; i < notes.size(); ++i)
    value += (i == 0 ? "" : "; ") + notes[i];
  pod["metadata"]["annotations"][kAnnotation] = value;
}

std::vector<std::string> LimitRangeViolations(const json& range,
                                              const json& obj,
                                              std::string_view resource) {
  std::vector<std::string> out;
  const json& spec = ValueAt(obj, "spec");
  const bool claim = resource == "persistentvolumeclaims";
  for (const json& item : ArrayAt(ValueAt(range, "spec"), "limits")) {
    const std::string& type = StringAt(item, "type");
    if (claim) {
      if (type != "PersistentVolumeClaim") continue;
      Check(type, item,
            AmountsOf(ValueAt(ValueAt(spec, "resources"), "requests")), {},
            &out, /*request_only=*/true);
    } else if (type == "Container") {
      for (const char* list : {"containers", "initContainers"}) {
        for (const json& c : ArrayAt(spec, list)) {
          const json& resources = ValueAt(c, "resources");
          Check(type, item, AmountsOf(ValueAt(resources, "requests")),
                AmountsOf(ValueAt(resources, "limits")), &out);
        }
      }
    } else if (type == "Pod") {
      Check(type, item, PodSum(spec, "requests"), PodSum(spec, "limits"), &out);
    }
  }
  return out;
}

LimitRangerAdmission::LimitRangerAdmission()
    : ranges_("", "v1", "limitranges") {}

bool LimitRangerAdmission::Handles(const api::ResourceInfo& res) const {
  return res.group.empty() &&
         (res.plural == "pods" || res.plural == "persistentvolumeclaims");
}

Result<std::vector<json>> LimitRangerAdmission::RangesIn(
    Registry& registry, std::string_view ns) const {
  KMOCK_ASSIGN_OR_RETURN(std::shared_ptr<const CachedList::Items> all,
                         ranges_.Get(registry));
  std::vector<json> out;
  for (const json& r : *all) {
    if (ValueAt(ValueAt(r, "metadata"), "namespace") == ns) out.push_back(r);
  }
  std::sort(out.begin(), out.end(), [](const json& a, const json& b) {
    return a["metadata"].value("name", "") < b["metadata"].value("name", "");
  });
  return out;
}

Status LimitRangerAdmission::AdmitCreate(Registry& registry,
                                         const AdmissionRequest& req,
                                         json& obj) const {
  // Claims get no defaults: their storage request is required.
  if (req.resource->plural != "pods") return Status::Ok();
  KMOCK_ASSIGN_OR_RETURN(std::vector<json> ranges, RangesIn(registry, req.ns));
  if (!obj["spec"].is_object()) return Status::Ok();
  for (const json& range : ranges) ApplyLimitRangeDefaults(range, obj);
  return Status::Ok();
}

Status LimitRangerAdmission::ValidateCreate(Registry& registry,
                                            const AdmissionRequest& req,
                                            const json& obj) const {
  KMOCK_ASSIGN_OR_RETURN(std::vector<json> ranges, RangesIn(registry, req.ns));
  // The first range broken refuses, with every message it gives once
  // (Go's aggregate error: one as it is, several as "[a, b]").
  for (const json& range : ranges) {
    std::vector<std::string> violations;
    for (std::string& v :
         LimitRangeViolations(range, obj, req.resource->plural)) {
      if (std::find(violations.begin(), violations.end(), v) ==
          violations.end()) {
        violations.push_back(std::move(v));
      }
    }
    if (violations.empty()) continue;
    std::string detail = violations[0];
    if (violations.size() > 1) {
      detail = "[";
      for (size_t i = 0; i < violations.size(); ++i)
        detail += (i == 0 ? "" : ", ") + violations[i];
      detail += "]";
    }
    return Forbidden(*req.resource, StringAt(ValueAt(obj, "metadata"), "name"),
                     detail);
  }
  return Status::Ok();
}

}  // namespace kmock::registry
