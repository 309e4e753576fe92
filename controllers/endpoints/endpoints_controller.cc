#include "controllers/endpoints/endpoints_controller.h"

#include "common/json_view.h"
#include "controllers/apps/object_util.h"
#include "controllers/controller_write.h"
#include "controllers/endpoints/desired_endpoints.h"
#include "controllers/replicaset_controller.h"

namespace kmock::controllers {

namespace {

using endpoints::kManagedByLabel;
using endpoints::kManagedByValue;
using endpoints::kServiceNameLabel;
using endpoints::kTriggerTimeAnnotation;

constexpr char kByServiceIndex[] = "service";

std::vector<std::string> SliceServiceIndex(const json& slice) {
  const json& labels = ObjectAt(ObjectAt(slice, "metadata"), "labels");
  auto it = labels.find(kServiceNameLabel);
  if (it == labels.end() || !it->is_string()) return {};
  return {apps::NamespaceOf(slice) + "/" + it->get<std::string>()};
}

// Absent and empty lists are the same content.
json ListOrEmpty(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? json::array() : *it;
}

json SliceLabels(const json& service) {
  json labels = endpoints::EndpointsLabels(service);
  labels[kServiceNameLabel] = apps::NameOf(service);
  labels[kManagedByLabel] = kManagedByValue;
  return labels;
}

bool SameSlice(const json& live, const endpoints::SliceContent& want,
               const json& labels) {
  return ObjectAt(live, "ports") == want.ports &&
         ListOrEmpty(live, "endpoints") == want.endpoints &&
         ObjectAt(ObjectAt(live, "metadata"), "labels") == labels;
}

}  // namespace

EndpointsController::EndpointsController(registry::Registry* registry,
                                         const Clock* clock,
                                         const CoreResources& res,
                                         Informer* pods, Informer* nodes,
                                         EndpointsControllerOptions options)
    : registry_(registry),
      clock_(clock),
      res_(res),
      pods_(pods),
      nodes_(nodes),
      options_(options),
      queue_(clock),
      loop_("endpoints", &queue_, options_.workers,
            [this](const std::string& key) { return Sync(key); }) {
  services_ = std::make_unique<Informer>(registry_, res_.services);
  services_->AddIndex(kByNamespaceIndex, NamespaceIndex);
  endpoints_ = std::make_unique<Informer>(registry_, res_.endpoints);
  InformerOptions managed;
  managed.label_selector = std::string(kManagedByLabel) + "=" + kManagedByValue;
  slices_ = std::make_unique<Informer>(registry_, res_.endpointslices, managed);
  slices_->AddIndex(kByServiceIndex, SliceServiceIndex);

  auto queue_object = [this](const json& obj) { queue_.Add(KeyOf(obj)); };
  services_->AddHandlers(
      {queue_object,
       [queue_object](const json&, const json& obj) { queue_object(obj); },
       queue_object});
  // A change to the Endpoints of a known Service brings the Service back: a
  // write that met AlreadyExists or Conflict because this cache was behind
  // is settled once the cache catches up, and a user's edit is put right.
  // Endpoints without a Service are left alone (users write them before
  // their selectorless Service); only their deletion is followed.
  auto queue_known_service = [this](const json& obj) {
    std::string key = KeyOf(obj);
    if (services_->Get(key) != nullptr) queue_.Add(key);
  };
  endpoints_->AddHandlers({queue_known_service,
                           [queue_known_service](const json&, const json& obj) {
                             queue_known_service(obj);
                           },
                           queue_object});
  // Any change to a managed slice (ours arriving in the cache included)
  // brings its Service back: a sync that found the cache behind its own
  // writes, or someone else's edit, is settled then.
  auto queue_service = [this](const json& slice) {
    for (const std::string& key : SliceServiceIndex(slice)) queue_.Add(key);
  };
  slices_->AddHandlers({queue_service,
                        [queue_service](const json&, const json& slice) {
                          queue_service(slice);
                        },
                        queue_service});
  pods_->AddHandlers(
      {[this](const json& pod) { QueueServicesSelecting(pod); },
       [this](const json& old_pod, const json& pod) {
         QueueServicesSelecting(old_pod);
         QueueServicesSelecting(pod);
       },
       [this](const json& pod) { QueueServicesSelecting(pod); }});
}

EndpointsController::~EndpointsController() { Stop(); }

void EndpointsController::Start() {
  loop_.Start({services_.get(), endpoints_.get(), slices_.get()});
}

void EndpointsController::Stop() { loop_.Stop(); }

void EndpointsController::QueueServicesSelecting(const json& pod) {
  // Before the first list the Service's own add queues it anyway.
  for (const ObjectPtr& service :
       services_->ByIndex(kByNamespaceIndex, apps::NamespaceOf(pod))) {
    if (endpoints::SelectorMatches(*service, pod)) {
      queue_.Add(KeyOf(*service));
    }
  }
}

Status EndpointsController::Sync(const std::string& key) {
  KMOCK_RETURN_IF_ERROR(WaitForInformers(
      {services_.get(), endpoints_.get(), slices_.get(), pods_, nodes_}));
  std::string ns, name;
  SplitKey(key, &ns, &name);
  ObjectPtr service = services_->Get(key);
  if (service == nullptr) {
    tracker_.Forget(key);
    if (endpoints_->Get(key) == nullptr) return Status::Ok();
    auto deleted = registry_->Delete(*res_.endpoints, ns, name, {});
    return deleted.ok() ? Status::Ok()
                        : IgnoreRoutineWriteErrors(deleted.status());
  }
  if (!endpoints::ServiceHasSelector(*service)) return DeleteSlices(key);
  std::vector<ObjectPtr> pods;
  for (const ObjectPtr& pod : pods_->ByIndex(kByNamespaceIndex, ns)) {
    if (endpoints::SelectorMatches(*service, *pod)) pods.push_back(pod);
  }
  Status st = SyncEndpoints(*service, pods);
  Status slices = SyncSlices(*service, pods);
  return st.ok() ? slices : st;
}

Status EndpointsController::SyncEndpoints(const json& service,
                                          const std::vector<ObjectPtr>& pods) {
  const std::string ns = apps::NamespaceOf(service);
  const std::string name = apps::NameOf(service);
  json subsets = endpoints::EndpointSubsets(service, pods);
  json labels = endpoints::EndpointsLabels(service);
  std::string now = FormatRfc3339(clock_->Now());
  ObjectPtr live = endpoints_->Get(ns + "/" + name);
  if (live == nullptr) {
    json obj = {{"apiVersion", "v1"},
                {"kind", "Endpoints"},
                {"metadata",
                 {{"name", name},
                  {"labels", labels},
                  {"annotations", {{kTriggerTimeAnnotation, now}}}}}};
    if (!subsets.empty()) obj["subsets"] = std::move(subsets);
    auto created = registry_->Create(*res_.endpoints, ns, std::move(obj),
                                     ControllerWrite("endpoint-controller"));
    return created.ok() ? Status::Ok()
                        : IgnoreRoutineWriteErrors(created.status());
  }
  const json& live_labels = ObjectAt(ObjectAt(*live, "metadata"), "labels");
  if (ListOrEmpty(*live, "subsets") == subsets &&
      (live_labels.is_object() ? live_labels : json::object()) == labels) {
    return Status::Ok();
  }
  json obj = *live;
  if (subsets.empty()) {
    obj.erase("subsets");
  } else {
    obj["subsets"] = std::move(subsets);
  }
  obj["metadata"]["labels"] = std::move(labels);
  obj["metadata"]["annotations"][kTriggerTimeAnnotation] = now;
  auto updated =
      registry_->Update(*res_.endpoints, ns, name, "", std::move(obj),
                        ControllerWrite("endpoint-controller"));
  return updated.ok() ? Status::Ok()
                      : IgnoreRoutineWriteErrors(updated.status());
}

Status EndpointsController::SyncSlices(const json& service,
                                       const std::vector<ObjectPtr>& pods) {
  const std::string ns = apps::NamespaceOf(service);
  const std::string key = ns + "/" + apps::NameOf(service);
  auto zone_of = [this](const std::string& node_name) -> std::string {
    ObjectPtr node = nodes_->Get(node_name);
    if (node == nullptr) return "";
    const json& labels = ObjectAt(ObjectAt(*node, "metadata"), "labels");
    return labels.value("topology.kubernetes.io/zone", "");
  };
  std::vector<endpoints::SliceContent> wanted = endpoints::DesiredSlices(
      service, pods, zone_of, options_.max_endpoints_per_slice);
  std::vector<ObjectPtr> live = slices_->ByIndex(kByServiceIndex, key);
  if (tracker_.Stale(key, live)) {
    return Status(StatusCode::kServiceUnavailable,
                  "the EndpointSlice cache is behind this controller's "
                  "writes for " +
                      key);
  }
  const json labels = SliceLabels(service);
  const std::string now = FormatRfc3339(clock_->Now());
  const auto write = ControllerWrite("endpointslice-controller");
  std::vector<bool> used(live.size(), false);
  std::vector<const endpoints::SliceContent*> unplaced;
  // Slices already right stay as they are.
  for (const auto& want : wanted) {
    bool placed = false;
    for (size_t i = 0; i < live.size() && !placed; ++i) {
      if (!used[i] && SameSlice(*live[i], want, labels)) {
        used[i] = placed = true;
      }
    }
    if (!placed) unplaced.push_back(&want);
  }
  Status result = Status::Ok();
  auto note = [&result](const Status& st) {
    if (result.ok()) result = IgnoreRoutineWriteErrors(st);
  };
  // The others are rewritten into the remaining slices, or made anew.
  for (const endpoints::SliceContent* want : unplaced) {
    size_t reuse = 0;
    while (reuse < live.size() && used[reuse]) ++reuse;
    json obj;
    if (reuse < live.size()) {
      used[reuse] = true;
      obj = *live[reuse];
    } else {
      obj = {{"apiVersion", "discovery.k8s.io/v1"},
             {"kind", "EndpointSlice"},
             {"metadata",
              {{"generateName", apps::NameOf(service) + "-"},
               {"ownerReferences", json::array({apps::MakeControllerRef(
                                       service, "v1", "Service")})}}},
             {"addressType", "IPv4"}};
    }
    obj["metadata"]["labels"] = labels;
    obj["metadata"]["annotations"][kTriggerTimeAnnotation] = now;
    obj["endpoints"] = want->endpoints;
    if (want->ports.is_null()) {
      obj.erase("ports");
    } else {
      obj["ports"] = want->ports;
    }
    const std::string name = apps::NameOf(obj);  // before obj is moved
    auto written = reuse < live.size()
                       ? registry_->Update(*res_.endpointslices, ns, name, "",
                                           std::move(obj), write)
                       : registry_->Create(*res_.endpointslices, ns,
                                           std::move(obj), write);
    if (written.ok()) {
      tracker_.Wrote(key, written->object);
    } else {
      note(written.status());
    }
  }
  for (size_t i = 0; i < live.size(); ++i) {
    if (used[i]) continue;
    const std::string name = apps::NameOf(*live[i]);
    auto deleted = registry_->Delete(*res_.endpointslices, ns, name, {});
    if (deleted.ok()) {
      tracker_.Deleted(key, name);
    } else {
      note(deleted.status());
    }
  }
  return result;
}

Status EndpointsController::DeleteSlices(const std::string& key) {
  std::string ns, name;
  SplitKey(key, &ns, &name);
  Status result = Status::Ok();
  for (const ObjectPtr& slice : slices_->ByIndex(kByServiceIndex, key)) {
    const std::string slice_name = apps::NameOf(*slice);
    auto deleted = registry_->Delete(*res_.endpointslices, ns, slice_name, {});
    if (deleted.ok()) {
      tracker_.Deleted(key, slice_name);
    } else if (result.ok()) {
      result = IgnoreRoutineWriteErrors(deleted.status());
    }
  }
  return result;
}

}  // namespace kmock::controllers
