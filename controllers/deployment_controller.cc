#include "controllers/deployment_controller.h"

#include <algorithm>

#include "api/kinds/workload_common.h"
#include "common/json_view.h"
#include "controllers/apps/object_util.h"
#include "controllers/controller_write.h"
#include "controllers/deployment/conditions.h"
#include "controllers/deployment/revision.h"
#include "controllers/deployment/rollout_math.h"
#include "controllers/replicaset_controller.h"
#include "registry/selectors.h"

namespace kmock::controllers {

namespace {

using apps::IntAt;
using apps::NameOf;
using apps::NamespaceOf;
using apps::UidOf;
using namespace deployment;  // NOLINT: the controller's own helpers

constexpr char kComponent[] = "deployment-controller";

registry::WriteOptions Write() {
  return ControllerWrite("deployment-controller");
}

// ReplicaSets by who may claim them: "uid:<controller uid>" for a
// controlled one, "orphan:<namespace>" for one without a controller. A
// Deployment looks at its own and its namespace's orphans only, not at
// every ReplicaSet of the namespace.
constexpr char kClaimIndex[] = "deployment-claim";

std::vector<std::string> ClaimIndex(const json& rs) {
  if (const json* ref = apps::ControllerRefOf(rs))
    return {"uid:" + ref->value("uid", "")};
  return {"orphan:" + NamespaceOf(rs)};
}

Result<registry::LabelSelector> SelectorOf(const json& obj) {
  return registry::LabelSelector::FromJson(
      ValueAt(ObjectAt(obj, "spec"), "selector"));
}

}  // namespace

std::vector<json> DeploymentController::Sets::All() const {
  std::vector<json> all = old;
  if (new_rs) all.push_back(*new_rs);
  return all;
}

DeploymentController::DeploymentController(registry::Registry* registry,
                                           const Clock* clock,
                                           CoreResources res, Informer* pods,
                                           Informer* replicasets,
                                           Informer* deployments,
                                           DeploymentControllerOptions options)
    : registry_(registry),
      clock_(clock),
      res_(res),
      pods_(pods),
      replicasets_(replicasets),
      deployments_(deployments),
      options_(options),
      recorder_(registry, clock, EventSource{kComponent, "", "", false},
                options.event_sink),
      queue_(clock) {
  replicasets_->AddIndex(kClaimIndex, ClaimIndex);
  deployments_->AddHandlers(EventHandlers{
      .on_add = [this](const json& d) { queue_.Add(KeyOf(d)); },
      .on_update = [this](const json&, const json& d) { queue_.Add(KeyOf(d)); },
      .on_delete = [this](const json& d) { queue_.Add(KeyOf(d)); },
  });
  replicasets_->AddHandlers(EventHandlers{
      .on_add = [this](const json& rs) { OnReplicaSet(rs); },
      .on_update =
          [this](const json& old_rs, const json& rs) {
            auto old_key = OwnerKey(old_rs);
            if (old_key && old_key != OwnerKey(rs)) queue_.Add(*old_key);
            OnReplicaSet(rs);
          },
      .on_delete =
          [this](const json& rs) {
            if (auto key = OwnerKey(rs)) queue_.Add(*key);
          },
  });
  // Recreate waits for the old pods to be gone.
  pods_->AddHandlers(EventHandlers{
      .on_add = nullptr,
      .on_update = nullptr,
      .on_delete =
          [this](const json& pod) {
            auto ref = apps::ControllerRefOf(pod);
            if (!ref || ref->value("kind", "") != "ReplicaSet") return;
            ObjectPtr rs = replicasets_->Get(NamespaceOf(pod) + "/" +
                                             ref->value("name", ""));
            if (!rs || UidOf(*rs) != ref->value("uid", "")) return;
            auto key = OwnerKey(*rs);
            if (!key) return;
            ObjectPtr d = deployments_->Get(*key);
            if (d && !IsRollingUpdate(*d)) queue_.Add(*key);
          },
  });
}

DeploymentController::~DeploymentController() { Stop(); }

void DeploymentController::Start() {
  if (workers_) return;
  // Acting on a partial cache would create objects that already exist.
  (void)pods_->WaitForSync(std::chrono::seconds(10));
  (void)replicasets_->WaitForSync(std::chrono::seconds(10));
  (void)deployments_->WaitForSync(std::chrono::seconds(10));
  workers_ = std::make_unique<WorkerPool>(
      kComponent, &queue_, options_.workers,
      [this](const std::string& k) { return Sync(k); });
}

void DeploymentController::Stop() {
  if (workers_) workers_->Stop();
}

std::optional<std::string> DeploymentController::OwnerKey(
    const json& rs) const {
  return apps::ControllerOwnerKey(
      rs, "Deployment",
      [this](const std::string& k) { return deployments_->Get(k); });
}

void DeploymentController::OnReplicaSet(const json& rs) {
  if (auto key = OwnerKey(rs)) {
    queue_.Add(*key);
    return;
  }
  if (apps::ControllerRefOf(rs)) return;
  // An orphan: every deployment that would adopt it.
  const json& labels = ObjectAt(rs["metadata"], "labels");
  for (const auto& d : deployments_->List()) {
    if (NamespaceOf(*d) != NamespaceOf(rs)) continue;
    auto sel = SelectorOf(*d);
    if (sel.ok() && !sel->Empty() && sel->Matches(labels)) {
      queue_.Add(KeyOf(*d));
    }
  }
}

Status DeploymentController::Sync(const std::string& key) {
  ObjectPtr cached = deployments_->Get(key);
  if (!cached) return Status::Ok();
  json d = *cached;
  const json selector = ValueAt(ObjectAt(d, "spec"), "selector");
  if (selector.is_object() && selector.empty()) {
    // A deployment selecting everything is left alone.
    (void)recorder_.Record(
        d, EventRecord{"Warning", "SelectingAll",
                       "This deployment is selecting all pods. A non-empty "
                       "selector is required.",
                       "", ""});
    if (IntAt(d, {"status", "observedGeneration"}) <
        IntAt(d, {"metadata", "generation"})) {
      d["status"]["observedGeneration"] = IntAt(d, {"metadata", "generation"});
      return WriteStatus(&d);
    }
    return Status::Ok();
  }
  KMOCK_ASSIGN_OR_RETURN(std::vector<json> rs_list, ClaimReplicaSets(d));
  if (apps::IsBeingDeleted(d)) return SyncStatusOnly(&d, rs_list);
  if (CheckPausedConditions(&d, clock_->Now())) {
    KMOCK_RETURN_IF_ERROR(WriteStatus(&d));
  }
  // The sets once per sync: a second SyncRevision on the same (now stale)
  // list would write the new set's annotations again and only conflict.
  KMOCK_ASSIGN_OR_RETURN(Sets sets, SyncRevision(&d, rs_list, false));
  if (d["spec"].value("paused", false) || IsScalingEvent(d, sets)) {
    return SyncScale(&d, std::move(sets));
  }
  if (!IsRollingUpdate(d)) return RolloutRecreate(&d, rs_list, std::move(sets));
  return RolloutRolling(&d, rs_list, std::move(sets));
}

Result<std::vector<json>> DeploymentController::ClaimReplicaSets(
    const json& d) {
  KMOCK_ASSIGN_OR_RETURN(registry::LabelSelector sel, SelectorOf(d));
  std::string uid = UidOf(d);
  bool deleting = apps::IsBeingDeleted(d);
  std::optional<bool> can_adopt;
  std::vector<json> owned;
  std::vector<ObjectPtr> candidates =
      replicasets_->ByIndex(kClaimIndex, "uid:" + uid);
  for (ObjectPtr& orphan :
       replicasets_->ByIndex(kClaimIndex, "orphan:" + NamespaceOf(d))) {
    candidates.push_back(std::move(orphan));
  }
  // In name order, as a scan of the namespace would meet them.
  std::sort(candidates.begin(), candidates.end(),
            [](const ObjectPtr& a, const ObjectPtr& b) {
              return ObjectAt(*a, "metadata").value("name", "") <
                     ObjectAt(*b, "metadata").value("name", "");
            });
  for (const auto& p : candidates) {
    const json& rs = *p;
    bool matches =
        !sel.Empty() && sel.Matches(ValueAt(rs["metadata"], "labels"));
    auto ref = apps::ControllerRefOf(rs);
    std::string rs_uid = UidOf(rs);
    if (ref) {
      if (ref->value("uid", "") != uid) continue;
      if (matches || deleting) {
        if (matches) owned.push_back(CopyWithoutManagedFields(rs));
        continue;
      }
      auto r = registry_->GuaranteedUpdate(
          *res_.replicasets, NamespaceOf(rs), NameOf(rs), "",
          [&](json& obj) -> Status {
            if (UidOf(obj) != rs_uid) return NotFoundError("replaced");
            apps::DropOwnerRef(&obj, uid);
            return Status::Ok();
          },
          Write());
      if (!r.ok() && r.status().code() != StatusCode::kNotFound) {
        return r.status();
      }
      continue;
    }
    if (!matches || deleting || apps::IsBeingDeleted(rs)) continue;
    if (!can_adopt) {
      auto fresh = registry_->Get(*res_.deployments, NamespaceOf(d), NameOf(d));
      can_adopt =
          fresh.ok() && UidOf(*fresh) == uid && !apps::IsBeingDeleted(*fresh);
    }
    if (!*can_adopt) continue;
    json ref_json = apps::MakeControllerRef(d, "apps/v1", "Deployment");
    auto r = registry_->GuaranteedUpdate(
        *res_.replicasets, NamespaceOf(rs), NameOf(rs), "",
        [&](json& obj) -> Status {
          if (UidOf(obj) != rs_uid) return NotFoundError("replaced");
          return apps::AddControllerRef(&obj, ref_json);
        },
        Write());
    if (r.ok()) {
      owned.push_back(CopyWithoutManagedFields(*r));
    } else if (r.status().code() != StatusCode::kNotFound &&
               r.status().code() != StatusCode::kConflict) {
      return r.status();
    }
  }
  return owned;
}

Result<DeploymentController::Sets> DeploymentController::SyncRevision(
    json* d, const std::vector<json>& rs_list, bool create) {
  Sets sets;
  std::optional<json> existing = FindNewReplicaSet(*d, rs_list);
  for (const auto& rs : rs_list) {
    if (!existing || UidOf(rs) != UidOf(*existing)) sets.old.push_back(rs);
  }
  std::string revision = std::to_string(MaxRevision(sets.old) + 1);
  if (existing) {
    json rs = *existing;
    bool annotations = SetNewReplicaSetAnnotations(*d, &rs, revision, true);
    int64_t min_ready = IntAt(*d, {"spec", "minReadySeconds"});
    if (annotations || IntAt(rs, {"spec", "minReadySeconds"}) != min_ready) {
      rs["spec"]["minReadySeconds"] = min_ready;
      KMOCK_RETURN_IF_ERROR(WriteReplicaSet(&rs));
      sets.new_rs = rs;
      return sets;
    }
    bool needs_update = SetDeploymentRevision(
        d, apps::StrAt(rs, {"metadata", "annotations", kRevisionAnnotation}));
    json& status = (*d)["status"];
    if (!status.is_object()) status = json::object();
    if (HasProgressDeadline(*d) &&
        GetCondition(status, "Progressing") == nullptr) {
      SetCondition(&status,
                   NewCondition("Progressing", "True", kFoundNewRSReason,
                                "Found new replica set \"" + NameOf(rs) + "\"",
                                clock_->Now()));
      needs_update = true;
    }
    if (needs_update) KMOCK_RETURN_IF_ERROR(WriteStatus(d));
    sets.new_rs = rs;
    return sets;
  }
  if (!create) return sets;
  KMOCK_ASSIGN_OR_RETURN(json created,
                         CreateNewReplicaSet(d, sets.old, revision));
  sets.new_rs = created;
  return sets;
}

Result<json> DeploymentController::CreateNewReplicaSet(
    json* d, const std::vector<json>& old, const std::string& revision) {
  const json& spec = (*d)["spec"];
  json tmpl = ObjectAt(spec, "template");
  std::optional<int32_t> collisions;
  if ((*d).contains("status") && (*d)["status"].contains("collisionCount")) {
    collisions = (*d)["status"]["collisionCount"].get<int32_t>();
  }
  std::string hash = api::kinds::PodTemplateHash(tmpl, collisions);
  json& labels = tmpl["metadata"]["labels"];
  if (!labels.is_object()) labels = json::object();
  labels[kPodTemplateHashLabel] = hash;
  json selector = ObjectAt(spec, "selector");
  if (!selector.contains("matchLabels") ||
      !selector["matchLabels"].is_object()) {
    selector["matchLabels"] = json::object();
  }
  selector["matchLabels"][kPodTemplateHashLabel] = hash;
  std::string name = NameOf(*d) + "-" + hash;
  json rs = {
      {"apiVersion", "apps/v1"},
      {"kind", "ReplicaSet"},
      {"metadata",
       {{"name", name},
        {"namespace", NamespaceOf(*d)},
        {"labels", labels},
        {"ownerReferences",
         json::array({apps::MakeControllerRef(*d, "apps/v1", "Deployment")})}}},
      {"spec",
       {{"replicas", 0},
        {"minReadySeconds", IntAt(*d, {"spec", "minReadySeconds"})},
        {"selector", selector},
        {"template", tmpl}}}};
  std::vector<json> all = old;
  all.push_back(rs);
  int64_t replicas = NewReplicaSetReplicas(*d, all, rs);
  rs["spec"]["replicas"] = replicas;
  SetNewReplicaSetAnnotations(*d, &rs, revision, false);

  bool already_exists = false;
  json created;
  auto r = registry_->Create(*res_.replicasets, NamespaceOf(*d), rs, Write());
  if (r.ok()) {
    created = r->object;
  } else if (r.status().code() == StatusCode::kAlreadyExists) {
    already_exists = true;
    auto cur = registry_->Get(*res_.replicasets, NamespaceOf(*d), name);
    if (!cur.ok()) return cur.status();
    auto ref = apps::ControllerRefOf(*cur);
    if (ref && ref->value("uid", "") == UidOf(*d) &&
        EqualIgnoreHash(ObjectAt(spec, "template"),
                        ObjectAt((*cur)["spec"], "template"))) {
      created = *cur;
    } else {
      // A hash collision: try the next name on the next sync.
      json& status = (*d)["status"];
      if (!status.is_object()) status = json::object();
      status["collisionCount"] = IntAt(status, {"collisionCount"}) + 1;
      (void)WriteStatus(d);
      return r.status();
    }
  } else if (r.status().code() == StatusCode::kForbidden &&
             r.status().message().find("being terminated") !=
                 std::string::npos) {
    return r.status();
  } else {
    std::string msg = "Failed to create new replica set \"" + name +
                      "\": " + r.status().message();
    if (HasProgressDeadline(*d)) {
      json& status = (*d)["status"];
      if (!status.is_object()) status = json::object();
      SetCondition(&status,
                   NewCondition("Progressing", "False", kFailedRSCreateReason,
                                msg, clock_->Now()));
      (void)WriteStatus(d);
    }
    (void)recorder_.Record(
        *d, EventRecord{"Warning", kFailedRSCreateReason, msg, "", ""});
    return r.status();
  }
  if (!already_exists && replicas > 0) {
    (void)recorder_.Record(
        *d, EventRecord{"Normal", "ScalingReplicaSet",
                        "Scaled up replica set " + name + " from 0 to " +
                            std::to_string(replicas),
                        "", ""});
  }
  bool needs_update = SetDeploymentRevision(d, revision);
  if (!already_exists && HasProgressDeadline(*d)) {
    json& status = (*d)["status"];
    if (!status.is_object()) status = json::object();
    SetCondition(&status,
                 NewCondition("Progressing", "True", kNewRSReason,
                              "Created new replica set \"" + name + "\"",
                              clock_->Now()));
    needs_update = true;
  }
  if (needs_update) KMOCK_RETURN_IF_ERROR(WriteStatus(d));
  return created;
}

Status DeploymentController::WriteStatus(json* d) {
  std::string uid = UidOf(*d);
  const std::string view_rv = apps::StrAt(*d, {"metadata", "resourceVersion"});
  int64_t generation = IntAt(*d, {"metadata", "generation"});
  std::string revision =
      apps::StrAt(*d, {"metadata", "annotations", kRevisionAnnotation});
  const json status = ObjectAt(*d, "status");
  auto r = registry_->GuaranteedUpdateShared(
      *res_.deployments, NamespaceOf(*d), NameOf(*d), "status",
      [&](json& obj) -> Status {
        if (UidOf(obj) != uid) return NotFoundError("deployment was replaced");
        KMOCK_RETURN_IF_ERROR(
            apps::RequireUnchangedSince(obj, view_rv, "deployments.apps"));
        if (IntAt(obj, {"metadata", "generation"}) != generation) {
          return Status(StatusCode::kConflict, "the deployment changed");
        }
        obj["status"] = status;
        if (!revision.empty()) {
          obj["metadata"]["annotations"][kRevisionAnnotation] = revision;
        }
        return Status::Ok();
      },
      Write());
  if (!r.ok()) return r.status();
  (*d)["metadata"]["resourceVersion"] =
      (*r)->value()["metadata"]["resourceVersion"];
  return Status::Ok();
}

Status DeploymentController::WriteReplicaSet(json* rs) {
  std::string uid = UidOf(*rs);
  const std::string view_rv = apps::StrAt(*rs, {"metadata", "resourceVersion"});
  const json spec_replicas = (*rs)["spec"]["replicas"];
  const json min_ready = (*rs)["spec"].value("minReadySeconds", json(0));
  const json annotations = ObjectAt((*rs)["metadata"], "annotations");
  auto r = registry_->GuaranteedUpdate(
      *res_.replicasets, NamespaceOf(*rs), NameOf(*rs), "",
      [&](json& obj) -> Status {
        if (UidOf(obj) != uid) return NotFoundError("replica set was replaced");
        KMOCK_RETURN_IF_ERROR(
            apps::RequireUnchangedSince(obj, view_rv, "replicasets.apps"));
        obj["spec"]["replicas"] = spec_replicas;
        if (min_ready != json(0) || obj["spec"].contains("minReadySeconds")) {
          obj["spec"]["minReadySeconds"] = min_ready;
        }
        obj["metadata"]["annotations"] = annotations;
        return Status::Ok();
      },
      Write());
  if (!r.ok()) return r.status();
  *rs = CopyWithoutManagedFields(*r);
  return Status::Ok();
}

}  // namespace kmock::controllers
