#include "controllers/quota/resource_quota_controller.h"

#include <map>

#include "common/json_view.h"
#include "controllers/controller_write.h"
#include "controllers/replicaset_controller.h"
#include "registry/admission/quota_usage.h"

namespace kmock::controllers {

using nlohmann::json;

namespace {

constexpr char kResyncKey[] = "\x01resync";

bool Terminal(const json& pod) {
  const std::string& phase = StringAt(ObjectAt(pod, "status"), "phase");
  return phase == "Succeeded" || phase == "Failed";
}

}  // namespace

ResourceQuotaController::ResourceQuotaController(
    registry::Registry* registry, const Clock* clock,
    const api::ResourceInfo* quotas, Informer* pods,
    ResourceQuotaControllerOptions options)
    : registry_(registry),
      quotas_res_(quotas),
      options_(options),
      queue_(clock),
      loop_("resourcequota", &queue_, 1,
            [this](const std::string& key) { return Sync(key); }) {
  quotas_ = std::make_unique<Informer>(registry_, quotas_res_);
  quotas_->AddIndex(kByNamespaceIndex, NamespaceIndex);
  // A new quota, or new limits, are counted at once; the charges admission
  // writes to status.used are not recounted (a create charged but not yet
  // stored would be missed).
  auto queue_quota = [this](const json& q) { queue_.Add(KeyOf(q)); };
  quotas_->AddHandlers(
      {queue_quota,
       [queue_quota](const json& old_q, const json& q) {
         const json& hard = ObjectAt(ObjectAt(q, "spec"), "hard");
         if (hard != ObjectAt(ObjectAt(old_q, "spec"), "hard") ||
             hard != ObjectAt(ObjectAt(q, "status"), "hard")) {
           queue_quota(q);
         }
       },
       nullptr});
  // What a pod held comes back as soon as it is deleted or finishes.
  pods->AddHandlers(
      {nullptr,
       [this](const json& old_pod, const json& pod) {
         if (Terminal(pod) && !Terminal(old_pod))
           QueueNamespace(StringAt(ObjectAt(pod, "metadata"), "namespace"));
       },
       [this](const json& pod) {
         QueueNamespace(StringAt(ObjectAt(pod, "metadata"), "namespace"));
       }});
}

ResourceQuotaController::~ResourceQuotaController() { Stop(); }

void ResourceQuotaController::Start() {
  queue_.AddAfter(kResyncKey, options_.resync);
  loop_.Start({quotas_.get()});
}

void ResourceQuotaController::Stop() { loop_.Stop(); }

void ResourceQuotaController::QueueNamespace(const std::string& ns) {
  for (const ObjectPtr& q : quotas_->ByIndex(kByNamespaceIndex, ns))
    queue_.Add(KeyOf(*q));
}

Status ResourceQuotaController::Sync(const std::string& key) {
  if (key == kResyncKey) {
    for (const ObjectPtr& q : quotas_->List()) queue_.Add(KeyOf(*q));
    queue_.AddAfter(kResyncKey, options_.resync);
    return Status::Ok();
  }
  KMOCK_RETURN_IF_ERROR(WaitForInformers({quotas_.get()}));
  std::string ns, name;
  SplitKey(key, &ns, &name);
  ObjectPtr cached = quotas_->Get(key);
  if (cached == nullptr) return Status::Ok();
  const json& hard = ObjectAt(ObjectAt(*cached, "spec"), "hard");
  // Each counted resource is listed once, whatever the names it serves.
  std::map<const api::ResourceInfo*, std::vector<json>> listed;
  json used = json::object();
  for (auto it = hard.begin(); it != hard.end(); ++it) {
    const api::ResourceInfo* res =
        registry::CountedResource(registry_->catalog(), it.key());
    int64_t total = 0;
    if (res != nullptr) {
      auto found = listed.find(res);
      if (found == listed.end()) {
        auto list = registry_->List(*res, ns, {});
        if (!list.ok()) return list.status();
        std::vector<json> items;
        for (json& item : (*list)["items"]) items.push_back(std::move(item));
        found = listed.emplace(res, std::move(items)).first;
      }
      for (const json& obj : found->second) {
        registry::QuotaUsage usage = registry::UsageOf(*res, obj);
        if (auto u = usage.find(it.key()); u != usage.end()) total += u->second;
      }
    }
    used[it.key()] = registry::FormatQuantity(it.key(), total);
  }
  json status = {{"hard", hard}, {"used", used}};
  if (ObjectAt(*cached, "status") == status) return Status::Ok();
  json updated = *cached;
  updated["status"] = std::move(status);
  auto written =
      registry_->Update(*quotas_res_, ns, name, "status", std::move(updated),
                        ControllerWrite("resourcequota-controller"));
  // Charged or changed meanwhile: its own event brings it back.
  return written.ok() ? Status::Ok()
                      : IgnoreRoutineWriteErrors(written.status());
}

}  // namespace kmock::controllers
