#include "controllers/replicaset_controller.h"

#include <algorithm>

#include "common/json_view.h"
#include "controllers/apps/object_util.h"
#include "controllers/controller_write.h"
#include "controllers/replicaset/pod_ranking.h"
#include "controllers/replicaset/status.h"
#include "registry/selectors.h"

namespace kmock::controllers {

namespace {

using apps::IntAt;
using apps::NameOf;
using apps::NamespaceOf;
using apps::UidOf;

constexpr int kSlowStartInitialBatch = 1;

std::string PodKey(const json& pod) { return KeyOf(pod); }

// A pod's name prefix: "<rs>-" (kube uses the bare name when that is not a
// valid generateName; ours always is).
std::string PodPrefix(const json& rs) { return NameOf(rs) + "-"; }

}  // namespace

std::vector<std::string> NamespaceIndex(const json& obj) {
  return {NamespaceOf(obj)};
}

std::vector<std::string> ControllerIndex(const json& obj) {
  if (auto ref = apps::ControllerRefOf(obj))
    return {"uid:" + StringAt(*ref, "uid")};
  return {"orphan:" + NamespaceOf(obj)};
}

ReplicaSetController::ReplicaSetController(registry::Registry* registry,
                                           const Clock* clock,
                                           CoreResources res, Informer* pods,
                                           Informer* replicasets,
                                           ReplicaSetControllerOptions options)
    : registry_(registry),
      clock_(clock),
      res_(res),
      pods_(pods),
      replicasets_(replicasets),
      options_(options),
      kind_(options.replication_controllers
                ? OwnerKind{res.replicationcontrollers, "ReplicationController",
                            "v1", "", "replication-controller"}
                : OwnerKind{res.replicasets, "ReplicaSet", "apps/v1", "apps",
                            "replicaset-controller"}),
      recorder_(registry, clock, EventSource{kind_.component, "", "", false},
                options.event_sink),
      expectations_(clock),
      queue_(clock),
      pod_routing_(kind_.kind, replicasets, &queue_, &expectations_,
                   kind_.group) {
  replicasets_->AddHandlers(EventHandlers{
      .on_add = [this](const json& rs) { queue_.Add(KeyOf(rs)); },
      .on_update = [this](const json&,
                          const json& rs) { queue_.Add(KeyOf(rs)); },
      .on_delete =
          [this](const json& rs) {
            expectations_.Forget(KeyOf(rs));
            queue_.Add(KeyOf(rs));
          },
  });
  pods_->AddHandlers(pod_routing_.Handlers());
}

ReplicaSetController::~ReplicaSetController() { Stop(); }

void ReplicaSetController::Start() {
  if (workers_) return;
  // Acting on a partial cache would create objects that already exist.
  (void)pods_->WaitForSync(std::chrono::seconds(10));
  (void)replicasets_->WaitForSync(std::chrono::seconds(10));
  workers_ = std::make_unique<WorkerPool>(
      kind_.component, &queue_, options_.workers,
      [this](const std::string& k) { return Sync(k); });
}

void ReplicaSetController::Stop() {
  if (workers_) workers_->Stop();
}

Status ReplicaSetController::Sync(const std::string& key) {
  ObjectPtr cached = replicasets_->Get(key);
  if (!cached) {
    expectations_.Forget(key);
    pod_facts_.Forget(key);
    return Status::Ok();
  }
  const json& rs = *cached;
  bool needs_sync = expectations_.Satisfied(key);
  std::vector<replicaset::PodFacts> facts;
  KMOCK_ASSIGN_OR_RETURN(std::vector<ObjectPtr> owned,
                         ClaimPods(key, rs, &facts));
  std::optional<std::string> manage_error;
  if (needs_sync && !apps::IsBeingDeleted(rs)) {
    manage_error = ManageReplicas(rs, owned);
  }
  TimePoint now = clock_->Now();
  json status = replicaset::CalculateStatus(rs, facts, manage_error, now);
  status["observedGeneration"] = IntAt(rs, {"metadata", "generation"});
  if (status != ObjectAt(rs, "status")) {
    Status st = WriteStatus(rs, status);
    if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
  }
  if (!manage_error) {
    if (auto at = replicaset::NextAvailableAt(rs, facts, now)) {
      queue_.AddAfter(key, (*at - now) + std::chrono::seconds(1));
    }
  }
  if (manage_error) return InternalError(*manage_error);
  return Status::Ok();
}

Result<std::vector<ObjectPtr>> ReplicaSetController::ClaimPods(
    const std::string& key, const json& rs,
    std::vector<replicaset::PodFacts>* owned_facts) {
  auto sel = registry::LabelSelector::FromJson(apps::SelectorJsonOf(rs));
  if (!sel.ok()) return sel.status();
  std::string uid = UidOf(rs);
  bool rs_deleting = apps::IsBeingDeleted(rs);
  std::vector<ObjectPtr> owned;
  std::optional<bool> can_adopt;
  // This ReplicaSet's pods and its namespace's orphans, in name order as
  // the namespace index would give them. Each index entry is already in
  // key order, that is name order within the namespace: merge, not sort.
  std::vector<ObjectPtr> candidates =
      pods_->ByIndex(kByControllerIndex, "uid:" + uid);
  std::vector<ObjectPtr> orphans =
      pods_->ByIndex(kByControllerIndex, "orphan:" + NamespaceOf(rs));
  if (!orphans.empty()) {
    const auto owned_end = static_cast<std::ptrdiff_t>(candidates.size());
    candidates.insert(candidates.end(), orphans.begin(), orphans.end());
    std::inplace_merge(candidates.begin(), candidates.begin() + owned_end,
                       candidates.end(),
                       [](const ObjectPtr& a, const ObjectPtr& b) {
                         return StringAt(ObjectAt(*a, "metadata"), "name") <
                                StringAt(ObjectAt(*b, "metadata"), "name");
                       });
  }
  replicaset::SetView view;
  view.uid = uid;
  view.selector = &*sel;
  view.template_labels = &ObjectAt(
      ObjectAt(ObjectAt(ObjectAt(rs, "spec"), "template"), "metadata"),
      "labels");
  const std::vector<replicaset::PodFacts> facts = pod_facts_.For(
      key, IntAt(rs, {"metadata", "generation"}), view, candidates);
  owned_facts->clear();
  for (size_t i = 0; i < candidates.size(); ++i) {
    const ObjectPtr& p = candidates[i];
    const replicaset::PodFacts& f = facts[i];
    if (!f.active) continue;
    const bool matches = f.matches_selector;
    if (f.has_controller) {
      if (!f.controlled_here) continue;  // another controller's
      if (matches || rs_deleting) {
        if (matches) {
          owned.push_back(p);
          owned_facts->push_back(f);
        }
        continue;
      }
      Status st = Release(rs, *p);
      if (!st.ok() && st.code() != StatusCode::kNotFound &&
          st.code() != StatusCode::kConflict) {
        return st;
      }
      continue;
    }
    if (!matches || rs_deleting) continue;
    if (!can_adopt) {
      // Adopt only for a ReplicaSet that still exists and is not going.
      auto fresh = registry_->Get(*kind_.res, NamespaceOf(rs), NameOf(rs));
      can_adopt =
          fresh.ok() && UidOf(*fresh) == uid && !apps::IsBeingDeleted(*fresh);
    }
    if (!*can_adopt) continue;
    Status st = Adopt(rs, *p);
    if (st.ok()) {
      owned.push_back(p);
      replicaset::PodFacts adopted = f;
      adopted.has_controller = adopted.controlled_here = true;
      owned_facts->push_back(adopted);
    } else if (st.code() != StatusCode::kNotFound &&
               st.code() != StatusCode::kConflict) {
      return st;
    }
  }
  return owned;
}

Status ReplicaSetController::Adopt(const json& rs, const json& pod) {
  std::string pod_uid = UidOf(pod);
  json ref = apps::MakeControllerRef(rs, kind_.api_version, kind_.kind);
  auto r = registry_->GuaranteedUpdateShared(
      *res_.pods, NamespaceOf(pod), NameOf(pod), "",
      [&](json& obj) -> Status {
        if (UidOf(obj) != pod_uid) return NotFoundError("pod was replaced");
        return apps::AddControllerRef(&obj, ref);
      },
      ControllerWrite(kind_.component));
  return r.ok() ? Status::Ok() : r.status();
}

Status ReplicaSetController::Release(const json& rs, const json& pod) {
  std::string pod_uid = UidOf(pod);
  std::string uid = UidOf(rs);
  auto r = registry_->GuaranteedUpdateShared(
      *res_.pods, NamespaceOf(pod), NameOf(pod), "",
      [&](json& obj) -> Status {
        if (UidOf(obj) != pod_uid) return NotFoundError("pod was replaced");
        apps::DropOwnerRef(&obj, uid);
        return Status::Ok();
      },
      ControllerWrite(kind_.component));
  return r.ok() ? Status::Ok() : r.status();
}

std::optional<std::string> ReplicaSetController::ManageReplicas(
    const json& rs, const std::vector<ObjectPtr>& pods) {
  std::string key = KeyOf(rs);
  int64_t want = IntAt(rs, {"spec", "replicas"}, 1);
  int64_t diff = static_cast<int64_t>(pods.size()) - want;
  if (diff < 0) {
    // The pod informer can run ahead of the ReplicaSet informer: the pods
    // the garbage collector deletes for a ReplicaSet going in the
    // foreground arrive before that ReplicaSet's deletionTimestamp does.
    // Recheck the live object before replacing them.
    auto fresh = registry_->Get(*kind_.res, NamespaceOf(rs), NameOf(rs));
    if (!fresh.ok() || UidOf(*fresh) != UidOf(rs) ||
        apps::IsBeingDeleted(*fresh)) {
      return std::nullopt;
    }
    int64_t count = std::min<int64_t>(-diff, options_.burst_replicas);
    expectations_.ExpectCreations(key, static_cast<int>(count));
    int64_t done = 0;
    std::optional<std::string> err;
    for (int64_t batch = std::min<int64_t>(count, kSlowStartInitialBatch);
         batch > 0 && !err;
         batch = std::min<int64_t>(2 * batch, count - done)) {
      for (int64_t i = 0; i < batch; ++i) {
        Status st = CreatePod(rs);
        if (st.ok()) continue;
        // Creates refused in a terminating namespace are not failures.
        if (st.code() == StatusCode::kForbidden &&
            st.message().find("because it is being terminated") !=
                std::string::npos) {
          continue;
        }
        if (!err) err = st.message();
        expectations_.CreationObserved(key);
      }
      done += batch;
    }
    // Pods never attempted are not expected.
    for (int64_t i = done; i < count; ++i) expectations_.CreationObserved(key);
    return err;
  }
  if (diff > 0) {
    size_t count =
        static_cast<size_t>(std::min<int64_t>(diff, options_.burst_replicas));
    std::vector<json> candidates;
    candidates.reserve(pods.size());
    for (const auto& p : pods) candidates.push_back(*p);
    std::vector<json> victims = replicaset::PodsToDelete(
        candidates, RelatedPods(rs), count, clock_->Now());
    std::vector<std::string> keys;
    for (const auto& p : victims) keys.push_back(PodKey(p));
    expectations_.ExpectDeletions(key, keys);
    std::optional<std::string> err;
    for (const auto& p : victims) {
      Status st = DeletePod(rs, p);
      if (st.ok()) continue;
      expectations_.DeletionObserved(key, PodKey(p));
      if (st.code() != StatusCode::kNotFound && !err) err = st.message();
    }
    return err;
  }
  return std::nullopt;
}

Status ReplicaSetController::CreatePod(const json& rs) {
  const json tmpl = ObjectAt(ObjectAt(rs, "spec"), "template");
  const json& tmd = ObjectAt(tmpl, "metadata");
  json md = {{"generateName", PodPrefix(rs)},
             {"namespace", NamespaceOf(rs)},
             {"ownerReferences", json::array({apps::MakeControllerRef(
                                     rs, kind_.api_version, kind_.kind)})}};
  for (const char* f : {"labels", "annotations", "finalizers"}) {
    if (tmd.contains(f) && !tmd[f].is_null() && !tmd[f].empty()) {
      md[f] = tmd[f];
    }
  }
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", md},
              {"spec", ObjectAt(tmpl, "spec")}};
  auto r = registry_->Create(*res_.pods, NamespaceOf(rs), pod,
                             ControllerWrite(kind_.component));
  if (!r.ok()) {
    (void)recorder_.Record(
        rs, EventRecord{"Warning", "FailedCreate",
                        "Error creating: " + r.status().message(), "", ""});
    return r.status();
  }
  return recorder_.Record(
      rs, EventRecord{"Normal", "SuccessfulCreate",
                      "Created pod: " + NameOf(r->object), "", ""});
}

Status ReplicaSetController::DeletePod(const json& rs, const json& pod) {
  registry::DeleteOptions del;
  del.precondition_uid = UidOf(pod);
  del.user = ControllerWrite(kind_.component).user;
  auto r = registry_->Delete(*res_.pods, NamespaceOf(pod), NameOf(pod), del);
  if (!r.ok()) {
    if (r.status().code() != StatusCode::kNotFound) {
      (void)recorder_.Record(
          rs, EventRecord{"Warning", "FailedDelete",
                          "Error deleting: " + r.status().message(), "", ""});
    }
    return r.status();
  }
  return recorder_.Record(rs,
                          EventRecord{"Normal", "SuccessfulDelete",
                                      "Deleted pod: " + NameOf(pod), "", ""});
}

Status ReplicaSetController::WriteStatus(const json& rs, const json& status) {
  std::string uid = UidOf(rs);
  auto r = registry_->GuaranteedUpdateShared(
      *kind_.res, NamespaceOf(rs), NameOf(rs), "status",
      [&](json& obj) -> Status {
        if (UidOf(obj) != uid) return NotFoundError("replica set was replaced");
        obj["status"] = status;
        return Status::Ok();
      },
      ControllerWrite(kind_.component));
  return r.ok() ? Status::Ok() : r.status();
}

std::vector<json> ReplicaSetController::RelatedPods(const json& rs) const {
  std::vector<std::string> uids = {UidOf(rs)};
  if (auto owner = apps::ControllerRefOf(rs)) {
    std::string owner_uid = owner->value("uid", "");
    for (const auto& other :
         replicasets_->ByIndex(kByNamespaceIndex, NamespaceOf(rs))) {
      auto ref = apps::ControllerRefOf(*other);
      if (ref && ref->value("uid", "") == owner_uid &&
          UidOf(*other) != UidOf(rs)) {
        uids.push_back(UidOf(*other));
      }
    }
  }
  std::vector<json> out;
  for (const auto& p : pods_->ByIndex(kByNamespaceIndex, NamespaceOf(rs))) {
    auto ref = apps::ControllerRefOf(*p);
    if (!ref || !apps::IsPodActive(*p)) continue;
    if (std::find(uids.begin(), uids.end(), ref->value("uid", "")) !=
        uids.end()) {
      out.push_back(*p);
    }
  }
  return out;
}

}  // namespace kmock::controllers
