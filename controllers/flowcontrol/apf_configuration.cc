#include "controllers/flowcontrol/apf_configuration.h"

#include <map>
#include <set>
#include <vector>

#include "common/json_view.h"
#include "controllers/controller_write.h"
#include "controllers/flowcontrol/apf_bootstrap.h"

namespace kmock::controllers {

using nlohmann::json;

namespace {

constexpr char kBootstrapKey[] = "bootstrap";
constexpr char kStatusKey[] = "dangling";

using ByName = std::map<std::string, json>;

Result<ByName> ListByName(registry::Registry* registry,
                          const api::ResourceInfo& res, bool metadata_only) {
  registry::ListOptions opts;
  opts.metadata_only = metadata_only;
  KMOCK_ASSIGN_OR_RETURN(json list, registry->List(res, "", opts));
  ByName out;
  for (json& item : list["items"]) {
    std::string name = StringAt(ObjectAt(item, "metadata"), "name");
    out.emplace(std::move(name), std::move(item));
  }
  return out;
}

// Creates what is missing and revises what exists, as the producer's
// ensurer does for one list of bootstrap objects.
Status EnsureObjects(registry::Registry* registry, const api::ResourceInfo& res,
                     const ByName& live, const std::vector<json>& bootstrap,
                     bool mandatory, const registry::WriteOptions& wo) {
  for (const json& obj : bootstrap) {
    const std::string& name = StringAt(obj["metadata"], "name");
    auto found = live.find(name);
    if (found == live.end()) {
      auto created = registry->Create(res, "", obj, wo);
      if (!created.ok() &&
          created.status().code() != StatusCode::kAlreadyExists) {
        return created.status();
      }
      continue;
    }
    std::optional<json> revised =
        ReviseApfObject(found->second, obj, mandatory);
    if (!revised) continue;
    auto updated = registry->Update(res, "", name, "", std::move(*revised), wo);
    // Changed or deleted meanwhile: the next pass looks again.
    if (!updated.ok() && updated.status().code() != StatusCode::kConflict &&
        updated.status().code() != StatusCode::kNotFound) {
      return updated.status();
    }
  }
  return Status::Ok();
}

// Deletes the auto-updated objects the configuration no longer has.
Status RemoveUnwanted(registry::Registry* registry,
                      const api::ResourceInfo& res, const ByName& live,
                      const std::set<std::string>& wanted,
                      const registry::UserInfo& user) {
  for (const auto& [name, obj] : live) {
    if (wanted.count(name) != 0 || !IsUnwantedApfObject(obj)) continue;
    registry::DeleteOptions opts;
    opts.user = user;
    auto deleted = registry->Delete(res, "", name, opts);
    if (!deleted.ok() && deleted.status().code() != StatusCode::kNotFound) {
      return deleted.status();
    }
  }
  return Status::Ok();
}

}  // namespace

ApfConfiguration::ApfConfiguration(registry::Registry* registry,
                                   const Clock* clock,
                                   const api::ResourceInfo* flowschemas,
                                   const api::ResourceInfo* prioritylevels,
                                   ApfConfigurationOptions options)
    : registry_(registry),
      clock_(clock),
      flowschemas_(flowschemas),
      prioritylevels_(prioritylevels),
      options_(options),
      queue_(clock),
      loop_("apf-configuration", &queue_, 1,
            [this](const std::string& key) { return Sync(key); }) {
  // The events only say when to look again; every pass reads the store.
  InformerOptions metadata;
  metadata.metadata_only = true;
  schema_events_ =
      std::make_unique<Informer>(registry_, flowschemas_, metadata);
  level_events_ =
      std::make_unique<Informer>(registry_, prioritylevels_, metadata);
  EventHandlers requeue{
      [this](const json&) { queue_.Add(kStatusKey); },
      [this](const json&, const json&) { queue_.Add(kStatusKey); },
      [this](const json&) { queue_.Add(kStatusKey); }};
  schema_events_->AddHandlers(requeue);
  level_events_->AddHandlers(requeue);
}

ApfConfiguration::~ApfConfiguration() { Stop(); }

void ApfConfiguration::Start() {
  queue_.Add(kBootstrapKey);
  loop_.Start({schema_events_.get(), level_events_.get()});
}

void ApfConfiguration::Stop() { loop_.Stop(); }

Status ApfConfiguration::Sync(const std::string& key) {
  if (key == kBootstrapKey) {
    KMOCK_RETURN_IF_ERROR(EnsureBootstrap());
    queue_.AddAfter(kBootstrapKey, options_.resync);
    return Status::Ok();
  }
  return SyncDanglingConditions();
}

Status ApfConfiguration::EnsureBootstrap() {
  const registry::WriteOptions wo = ApiServerWrite(kApfProducerFieldManager);
  const ApfBootstrapObjects& boot = ApfBootstrapConfiguration();
  // One read of each kind: a restart writes nothing when all is in place.
  KMOCK_ASSIGN_OR_RETURN(ByName schemas,
                         ListByName(registry_, *flowschemas_, false));
  KMOCK_ASSIGN_OR_RETURN(ByName levels,
                         ListByName(registry_, *prioritylevels_, false));
  KMOCK_RETURN_IF_ERROR(EnsureObjects(registry_, *flowschemas_, schemas,
                                      boot.suggested_schemas, false, wo));
  KMOCK_RETURN_IF_ERROR(EnsureObjects(registry_, *prioritylevels_, levels,
                                      boot.suggested_levels, false, wo));
  KMOCK_RETURN_IF_ERROR(EnsureObjects(registry_, *flowschemas_, schemas,
                                      boot.mandatory_schemas, true, wo));
  KMOCK_RETURN_IF_ERROR(EnsureObjects(registry_, *prioritylevels_, levels,
                                      boot.mandatory_levels, true, wo));
  KMOCK_RETURN_IF_ERROR(RemoveUnwanted(registry_, *flowschemas_, schemas,
                                       boot.SchemaNames(), wo.user));
  return RemoveUnwanted(registry_, *prioritylevels_, levels, boot.LevelNames(),
                        wo.user);
}

Status ApfConfiguration::SyncDanglingConditions() {
  KMOCK_ASSIGN_OR_RETURN(ByName levels,
                         ListByName(registry_, *prioritylevels_, true));
  KMOCK_ASSIGN_OR_RETURN(ByName schemas,
                         ListByName(registry_, *flowschemas_, false));
  registry::WriteOptions wo = ApiServerWrite(kApfConsumerFieldManager);
  wo.force = true;
  const std::string now = FormatRfc3339(clock_->Now());
  for (const auto& [name, schema] : schemas) {
    const std::string& level = StringAt(
        ObjectAt(ObjectAt(schema, "spec"), "priorityLevelConfiguration"),
        "name");
    json wanted = DanglingCondition(level, levels.count(level) != 0, now);
    if (!DanglingConditionDiffers(schema, wanted)) continue;
    const json apply = {
        {"apiVersion", flowschemas_->ApiVersion()},
        {"kind", "FlowSchema"},
        {"metadata", {{"name", name}}},
        {"status", {{"conditions", json::array({std::move(wanted)})}}}};
    auto applied =
        registry_->Patch(*flowschemas_, "", name, "status",
                         registry::PatchType::kApply, apply.dump(), wo);
    if (!applied.ok() && applied.status().code() != StatusCode::kNotFound) {
      return applied.status();
    }
  }
  return Status::Ok();
}

}  // namespace kmock::controllers
