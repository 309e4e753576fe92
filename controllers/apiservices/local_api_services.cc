#include "controllers/apiservices/local_api_services.h"

#include <map>

#include "common/json_view.h"
#include "controllers/controller_write.h"

namespace kmock::controllers {

using nlohmann::json;

namespace {

constexpr char kKey[] = "local";
constexpr char kAvailableMessage[] = "Local APIServices are always available";

// A local APIService (no spec.service) that does not say Available yet:
// the only kind this loop marks.
bool NeedsMarking(const json& apiservice) {
  if (ObjectAt(apiservice, "spec").contains("service")) return false;
  for (const json& c : ArrayAt(ObjectAt(apiservice, "status"), "conditions")) {
    if (StringAt(c, "type") == "Available" && StringAt(c, "status") == "True") {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<ApiServicePriority> BuiltinApiServicePriority(
    const std::string& group, const std::string& version) {
  // kube-apiserver's table: the group's rank in discovery, then the
  // version's within it.
  static const auto* table =
      new std::map<std::pair<std::string, std::string>, ApiServicePriority>{
          {{"", "v1"}, {18000, 1}},
          {{"apiregistration.k8s.io", "v1"}, {18000, 15}},
          {{"apps", "v1"}, {17800, 15}},
          {{"events.k8s.io", "v1"}, {17750, 15}},
          {{"authentication.k8s.io", "v1"}, {17700, 15}},
          {{"authentication.k8s.io", "v1beta1"}, {17700, 9}},
          {{"authorization.k8s.io", "v1"}, {17600, 15}},
          {{"autoscaling", "v1"}, {17500, 15}},
          {{"autoscaling", "v2"}, {17500, 30}},
          {{"batch", "v1"}, {17400, 15}},
          {{"certificates.k8s.io", "v1"}, {17300, 15}},
          {{"networking.k8s.io", "v1"}, {17200, 15}},
          {{"policy", "v1"}, {17100, 15}},
          {{"rbac.authorization.k8s.io", "v1"}, {17000, 15}},
          {{"storage.k8s.io", "v1"}, {16800, 15}},
          {{"apiextensions.k8s.io", "v1"}, {16700, 15}},
          {{"admissionregistration.k8s.io", "v1"}, {16700, 15}},
          {{"scheduling.k8s.io", "v1"}, {16600, 15}},
          {{"coordination.k8s.io", "v1"}, {16500, 15}},
          {{"node.k8s.io", "v1"}, {16300, 15}},
          {{"discovery.k8s.io", "v1"}, {16200, 15}},
          {{"flowcontrol.apiserver.k8s.io", "v1"}, {16100, 21}},
          {{"flowcontrol.apiserver.k8s.io", "v1beta3"}, {16100, 18}},
          {{"flowcontrol.apiserver.k8s.io", "v1beta2"}, {16100, 15}},
      };
  auto it = table->find({group, version});
  if (it == table->end()) return std::nullopt;
  return it->second;
}

json LocalApiService(const std::string& group, const std::string& version,
                     ApiServicePriority priority) {
  json spec = {{"version", version},
               {"groupPriorityMinimum", priority.group},
               {"versionPriority", priority.version}};
  if (!group.empty()) spec["group"] = group;
  return {{"apiVersion", "apiregistration.k8s.io/v1"},
          {"kind", "APIService"},
          {"metadata",
           {{"name", version + "." + group},
            {"labels",
             {{"kube-aggregator.kubernetes.io/automanaged", "onstart"}}}}},
          {"spec", std::move(spec)}};
}

LocalApiServices::LocalApiServices(registry::Registry* registry,
                                   const Clock* clock,
                                   const api::ResourceInfo* apiservices)
    : registry_(registry),
      clock_(clock),
      apiservices_(apiservices),
      queue_(clock),
      loop_("apiservice-autoregister", &queue_, 1,
            [this](const std::string&) { return Sync(); }) {}

LocalApiServices::~LocalApiServices() { Stop(); }

void LocalApiServices::Start() {
  queue_.Add(kKey);
  loop_.Start({});
}

void LocalApiServices::Stop() { loop_.Stop(); }

Status LocalApiServices::Sync() {
  const registry::WriteOptions wo = ApiServerWrite("kube-apiserver");
  const std::string now = FormatRfc3339(clock_->Now());
  // One read of what exists: a restart writes nothing when all is there.
  KMOCK_ASSIGN_OR_RETURN(json existing, registry_->List(*apiservices_, "", {}));
  std::map<std::string, bool> needs_marking;  // name -> not Available yet
  for (const json& item : existing["items"]) {
    needs_marking[StringAt(ObjectAt(item, "metadata"), "name")] =
        NeedsMarking(item);
  }
  for (const auto& [group, version] : registry_->catalog().GroupVersions()) {
    std::optional<ApiServicePriority> priority =
        BuiltinApiServicePriority(group, version);
    if (!priority) continue;
    json obj = LocalApiService(group, version, *priority);
    const std::string name = StringAt(obj["metadata"], "name");
    auto found = needs_marking.find(name);
    if (found == needs_marking.end()) {
      auto created = registry_->Create(*apiservices_, "", std::move(obj), wo);
      if (!created.ok() &&
          created.status().code() != StatusCode::kAlreadyExists) {
        return created.status();
      }
    } else if (!found->second) {
      continue;
    }
    auto marked = registry_->GuaranteedUpdate(
        *apiservices_, "", name, "status",
        [&now](json& live) -> Status {
          if (!NeedsMarking(live)) return Status::Ok();
          live["status"]["conditions"] =
              json::array({{{"type", "Available"},
                            {"status", "True"},
                            {"lastTransitionTime", now},
                            {"reason", "Local"},
                            {"message", kAvailableMessage}}});
          return Status::Ok();
        },
        wo);
    if (!marked.ok() && marked.status().code() != StatusCode::kNotFound) {
      return marked.status();
    }
  }
  return Status::Ok();
}

}  // namespace kmock::controllers
