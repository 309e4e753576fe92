// The rollout half of DeploymentController: rolling update, recreate,
// proportional scaling, history cleanup and status.
#include <algorithm>

#include "common/json_view.h"
#include "controllers/apps/object_util.h"
#include "controllers/deployment/conditions.h"
#include "controllers/deployment/revision.h"
#include "controllers/deployment/rollout_math.h"
#include "controllers/deployment_controller.h"
#include "controllers/replicaset_controller.h"

namespace kmock::controllers {

namespace {

using apps::IntAt;
using apps::NameOf;
using apps::NamespaceOf;
using apps::UidOf;
using namespace deployment;  // NOLINT: the controller's own helpers

// Replaces the entry with rs's uid in rses by rs.
void Replace(std::vector<json>* rses, const json& rs) {
  for (auto& r : *rses) {
    if (UidOf(r) == UidOf(rs)) r = rs;
  }
}

}  // namespace

Result<bool> DeploymentController::ScaleReplicaSet(json* rs, int64_t new_scale,
                                                   const json& d) {
  int64_t old_scale = Replicas(*rs);
  bool size_changed = old_scale != new_scale;
  int64_t replicas = Replicas(d);
  bool annotations =
      ReplicasAnnotationsNeedUpdate(*rs, replicas, replicas + MaxSurge(d));
  if (!size_changed && !annotations) return false;
  (*rs)["spec"]["replicas"] = new_scale;
  SetReplicasAnnotations(rs, replicas, replicas + MaxSurge(d));
  KMOCK_RETURN_IF_ERROR(WriteReplicaSet(rs));
  if (size_changed) {
    std::string op = old_scale < new_scale ? "up" : "down";
    (void)recorder_.Record(
        d, EventRecord{"Normal", "ScalingReplicaSet",
                       "Scaled " + op + " replica set " + NameOf(*rs) +
                           " from " + std::to_string(old_scale) + " to " +
                           std::to_string(new_scale),
                       "", ""});
  }
  return size_changed;
}

bool DeploymentController::IsScalingEvent(const json& d,
                                          const Sets& sets) const {
  for (const auto& rs : FilterActive(sets.All())) {
    auto desired = DesiredReplicasAnnotation(rs);
    if (desired && *desired != Replicas(d)) return true;
  }
  return false;
}

Status DeploymentController::Scale(const json& d, Sets* sets) {
  if (auto one = FindActiveOrLatest(sets->new_rs, sets->old)) {
    if (Replicas(*one) == Replicas(d)) return Status::Ok();
    json rs = *one;
    KMOCK_ASSIGN_OR_RETURN(bool scaled, ScaleReplicaSet(&rs, Replicas(d), d));
    (void)scaled;
    if (sets->new_rs && UidOf(*sets->new_rs) == UidOf(rs)) sets->new_rs = rs;
    Replace(&sets->old, rs);
    return Status::Ok();
  }
  if (IsSaturated(d, sets->new_rs)) {
    for (auto& rs : sets->old) {
      if (Replicas(rs) == 0) continue;
      KMOCK_ASSIGN_OR_RETURN(bool scaled, ScaleReplicaSet(&rs, 0, d));
      (void)scaled;
    }
    return Status::Ok();
  }
  if (!IsRollingUpdate(d)) return Status::Ok();
  std::vector<json> active = FilterActive(sets->All());
  auto sizes = ProportionalSizes(d, &active);
  for (auto& rs : active) {
    int64_t target = sizes[NameOf(rs)];
    KMOCK_ASSIGN_OR_RETURN(bool scaled, ScaleReplicaSet(&rs, target, d));
    (void)scaled;
    if (sets->new_rs && UidOf(*sets->new_rs) == UidOf(rs)) sets->new_rs = rs;
    Replace(&sets->old, rs);
  }
  return Status::Ok();
}

Status DeploymentController::SyncScale(json* d, Sets sets) {
  KMOCK_RETURN_IF_ERROR(Scale(*d, &sets));
  if ((*d)["spec"].value("paused", false)) {
    KMOCK_RETURN_IF_ERROR(CleanupHistory(*d, sets.old));
  }
  json status = CalculateStatus(sets.All(), sets.new_rs, *d, clock_->Now());
  if (status == ObjectAt(*d, "status")) return Status::Ok();
  (*d)["status"] = status;
  return WriteStatus(d);
}

Status DeploymentController::SyncStatusOnly(json* d,
                                            const std::vector<json>& rs_list) {
  KMOCK_ASSIGN_OR_RETURN(Sets sets, SyncRevision(d, rs_list, false));
  json status = CalculateStatus(sets.All(), sets.new_rs, *d, clock_->Now());
  if (status == ObjectAt(*d, "status")) return Status::Ok();
  (*d)["status"] = status;
  return WriteStatus(d);
}

Result<bool> DeploymentController::ReconcileNewReplicaSet(const json& d,
                                                          Sets* sets) {
  json& rs = *sets->new_rs;
  int64_t replicas = Replicas(d);
  if (Replicas(rs) == replicas) return false;
  int64_t target = Replicas(rs) > replicas
                       ? replicas
                       : NewReplicaSetReplicas(d, sets->All(), rs);
  return ScaleReplicaSet(&rs, target, d);
}

Result<bool> DeploymentController::ReconcileOldReplicaSets(const json& d,
                                                           Sets* sets) {
  if (SumReplicas(sets->old) == 0) return false;
  int64_t max_scaled_down = MaxScaledDown(d, sets->All(), *sets->new_rs);
  if (max_scaled_down <= 0) return false;

  // First remove old pods that are not available anyway.
  std::vector<json> olds = sets->old;
  SortByCreation(&olds);
  int64_t cleaned = 0;
  for (auto& rs : olds) {
    if (cleaned >= max_scaled_down) break;
    int64_t n = Replicas(rs);
    int64_t available = IntAt(rs, {"status", "availableReplicas"});
    if (n == 0 || n == available) continue;
    int64_t down = std::min(max_scaled_down - cleaned, n - available);
    if (down < 0) {
      // The set's status still counts more available pods than its new
      // size (a scale-down its controller has not acted on yet): as
      // kube-controller-manager does, refuse rather than scale it back
      // up; the sync is retried once the status has caught up.
      return InternalError(
          "when cleaning up unhealthy replicas, got invalid request to scale "
          "down " +
          NamespaceOf(rs) + "/" + NameOf(rs) + " " + std::to_string(n) +
          " -> " + std::to_string(n - down));
    }
    KMOCK_ASSIGN_OR_RETURN(bool scaled, ScaleReplicaSet(&rs, n - down, d));
    (void)scaled;
    cleaned += down;
  }
  for (const auto& rs : olds) Replace(&sets->old, rs);

  // Then scale down as far as availability allows.
  int64_t min_available = Replicas(d) - MaxUnavailable(d);
  int64_t available = SumStatus(sets->All(), "availableReplicas");
  int64_t scaled_down = 0;
  if (available > min_available) {
    int64_t total = available - min_available;
    for (auto& rs : olds) {
      if (scaled_down >= total) break;
      int64_t n = Replicas(rs);
      if (n == 0) continue;
      int64_t down = std::min(n, total - scaled_down);
      KMOCK_ASSIGN_OR_RETURN(bool scaled, ScaleReplicaSet(&rs, n - down, d));
      (void)scaled;
      scaled_down += down;
    }
    for (const auto& rs : olds) Replace(&sets->old, rs);
  }
  return cleaned + scaled_down > 0;
}

Status DeploymentController::RolloutRolling(json* d,
                                            const std::vector<json>& rs_list,
                                            Sets sets) {
  if (!sets.new_rs) {
    KMOCK_ASSIGN_OR_RETURN(sets, SyncRevision(d, rs_list, true));
  }
  KMOCK_ASSIGN_OR_RETURN(bool scaled_up, ReconcileNewReplicaSet(*d, &sets));
  if (scaled_up) return SyncRolloutStatus(d, sets);
  KMOCK_ASSIGN_OR_RETURN(bool scaled_down, ReconcileOldReplicaSets(*d, &sets));
  if (scaled_down) return SyncRolloutStatus(d, sets);
  if (DeploymentComplete(*d, ObjectAt(*d, "status"))) {
    KMOCK_RETURN_IF_ERROR(CleanupHistory(*d, sets.old));
  }
  return SyncRolloutStatus(d, sets);
}

bool DeploymentController::OldPodsRunning(const Sets& sets) const {
  if (SumStatus(sets.old, "replicas") > 0) return true;
  std::vector<std::string> old_uids;
  for (const auto& rs : sets.old) old_uids.push_back(UidOf(rs));
  std::string ns = sets.old.empty() ? "" : NamespaceOf(sets.old[0]);
  if (ns.empty()) return false;
  for (const auto& p : pods_->ByIndex(kByNamespaceIndex, ns)) {
    auto ref = apps::ControllerRefOf(*p);
    if (!ref) continue;
    if (std::find(old_uids.begin(), old_uids.end(), ref->value("uid", "")) ==
        old_uids.end()) {
      continue;
    }
    std::string phase = apps::StrAt(*p, {"status", "phase"});
    if (phase != "Succeeded" && phase != "Failed") return true;
  }
  return false;
}

Status DeploymentController::RolloutRecreate(json* d,
                                             const std::vector<json>& rs_list,
                                             Sets sets) {
  bool scaled_down = false;
  for (auto& rs : sets.old) {
    if (Replicas(rs) == 0) continue;
    KMOCK_ASSIGN_OR_RETURN(bool scaled, ScaleReplicaSet(&rs, 0, *d));
    scaled_down = scaled_down || scaled;
  }
  if (scaled_down || OldPodsRunning(sets)) return SyncRolloutStatus(d, sets);
  if (!sets.new_rs) {
    KMOCK_ASSIGN_OR_RETURN(sets, SyncRevision(d, rs_list, true));
  }
  KMOCK_ASSIGN_OR_RETURN(bool scaled,
                         ScaleReplicaSet(&*sets.new_rs, Replicas(*d), *d));
  (void)scaled;
  if (DeploymentComplete(*d, ObjectAt(*d, "status"))) {
    KMOCK_RETURN_IF_ERROR(CleanupHistory(*d, sets.old));
  }
  return SyncRolloutStatus(d, sets);
}

Status DeploymentController::CleanupHistory(const json& d,
                                            const std::vector<json>& old) {
  for (const auto& name : HistoryToDelete(d, old)) {
    std::string uid;
    for (const auto& rs : old) {
      if (NameOf(rs) == name) uid = UidOf(rs);
    }
    registry::DeleteOptions del;
    del.precondition_uid = uid;
    del.user.name = "system:serviceaccount:kube-system:deployment-controller";
    auto r = registry_->Delete(*res_.replicasets, NamespaceOf(d), name, del);
    if (!r.ok() && r.status().code() != StatusCode::kNotFound &&
        r.status().code() != StatusCode::kConflict) {
      return r.status();
    }
  }
  return Status::Ok();
}

Status DeploymentController::SyncRolloutStatus(json* d, const Sets& sets) {
  TimePoint now = clock_->Now();
  json status = RolloutStatus(sets.All(), sets.new_rs, *d, now);
  if (status == ObjectAt(*d, "status")) {
    if (auto after = StuckRequeue(*d, status, now)) {
      if (after->count() == 0) {
        queue_.AddRateLimited(KeyOf(*d));
      } else {
        queue_.AddAfter(KeyOf(*d), *after);
      }
    }
    return Status::Ok();
  }
  (*d)["status"] = status;
  return WriteStatus(d);
}

}  // namespace kmock::controllers
