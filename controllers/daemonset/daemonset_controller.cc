#include "controllers/daemonset/daemonset_controller.h"

#include <algorithm>
#include <set>

#include "common/json_view.h"
#include "controllers/apps/object_util.h"
#include "controllers/apps/slow_start.h"
#include "controllers/controller_write.h"
#include "controllers/daemonset/history.h"
#include "controllers/daemonset/node_fit.h"
#include "controllers/replicaset_controller.h"
#include "registry/selectors.h"

namespace kmock::controllers {

namespace {

using apps::NameOf;
using apps::NamespaceOf;
using apps::UidOf;

constexpr char kComponent[] = "daemonset-controller";
constexpr auto kFailedPodBackoffInitial = std::chrono::seconds(1);
constexpr auto kFailedPodBackoffMax = std::chrono::minutes(15);

registry::WriteOptions Write() {
  return ControllerWrite("daemon-set-controller");
}

json OwnerRef(const json& ds) {
  return apps::MakeControllerRef(ds, "apps/v1", "DaemonSet");
}

Result<registry::LabelSelector> SelectorOf(const json& ds) {
  return registry::LabelSelector::FromJson(
      ValueAt(ObjectAt(ds, "spec"), "selector"));
}

// Whether the node's facts a DaemonSet looks at differ.
bool NodeFitsMayDiffer(const json& a, const json& b) {
  const json& ma = ObjectAt(a, "metadata");
  const json& mb = ObjectAt(b, "metadata");
  if (ValueAt(ma, "labels") != ValueAt(mb, "labels")) return true;
  if (ValueAt(ObjectAt(a, "spec"), "taints") !=
      ValueAt(ObjectAt(b, "spec"), "taints")) {
    return true;
  }
  auto conditions = [](const json& n) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const json& c : ArrayAt(ObjectAt(n, "status"), "conditions")) {
      out.emplace_back(StringAt(c, "type"), StringAt(c, "status"));
    }
    return out;
  };
  return conditions(a) != conditions(b);
}

}  // namespace

DaemonSetController::DaemonSetController(registry::Registry* registry,
                                         const Clock* clock,
                                         const CoreResources& res,
                                         Informer* pods, Informer* nodes,
                                         DaemonSetControllerOptions options)
    : registry_(registry),
      clock_(clock),
      res_(res),
      pods_(pods),
      nodes_(nodes),
      options_(options),
      queue_(clock),
      daemonsets_(std::make_unique<Informer>(registry, res.daemonsets)),
      expectations_(clock),
      pod_routing_("DaemonSet", daemonsets_.get(), &queue_, &expectations_),
      loop_(kComponent, &queue_, options.workers,
            [this](const std::string& key) { return Sync(key); }) {
  daemonsets_->AddIndex(kByNamespaceIndex, NamespaceIndex);
  revisions_ = std::make_unique<Informer>(registry_, res_.controllerrevisions);
  revisions_->AddIndex(kByControllerIndex, ControllerIndex);
  daemonsets_->AddHandlers(EventHandlers{
      .on_add = [this](const json& ds) { queue_.Add(KeyOf(ds)); },
      .on_update = [this](const json&,
                          const json& ds) { queue_.Add(KeyOf(ds)); },
      .on_delete =
          [this](const json& ds) {
            expectations_.Forget(KeyOf(ds));
            ForgetBackoff(UidOf(ds));
            queue_.Add(KeyOf(ds));
          },
  });
  pods_->AddHandlers(pod_routing_.Handlers());
  nodes_->AddHandlers(EventHandlers{
      .on_add = [this](const json& node) { OnNodeChange(nullptr, node); },
      .on_update = [this](const json& old_node,
                          const json& node) { OnNodeChange(&old_node, node); },
      .on_delete = [this](const json& node) { OnNodeChange(nullptr, node); },
  });
  EventSource source;
  source.component = kComponent;
  events_ = std::make_unique<EventRecorder>(registry_, clock, source,
                                            options.event_sink);
}

DaemonSetController::~DaemonSetController() { Stop(); }

void DaemonSetController::Start() {
  loop_.Start({revisions_.get(), daemonsets_.get()});
}

void DaemonSetController::Stop() { loop_.Stop(); }

void DaemonSetController::OnNodeChange(const json* old_node, const json& node) {
  if (old_node != nullptr && !NodeFitsMayDiffer(*old_node, node)) return;
  for (const ObjectPtr& ds : daemonsets_->List()) {
    if (old_node != nullptr) {
      const daemonset::NodeFit before =
          daemonset::ShouldRunOnNode(*ds, *old_node);
      const daemonset::NodeFit after = daemonset::ShouldRunOnNode(*ds, node);
      if (before.should_run == after.should_run &&
          before.should_continue_running == after.should_continue_running) {
        continue;
      }
    }
    queue_.Add(KeyOf(*ds));
  }
}

void DaemonSetController::Report(const json& ds, const char* type,
                                 const std::string& reason,
                                 const std::string& message) {
  // With a sink the write is queued; a failure is logged there.
  (void)events_->Record(ds, EventRecord{type, reason, message, "", ""});
}

Status DaemonSetController::Sync(const std::string& key) {
  KMOCK_RETURN_IF_ERROR(
      WaitForInformers({pods_, nodes_, daemonsets_.get(), revisions_.get()}));
  ObjectPtr cached = daemonsets_->Get(key);
  if (!cached) {
    expectations_.Forget(key);
    return Status::Ok();
  }
  const json& ds = *cached;
  auto selector = SelectorOf(ds);
  if (!selector.ok()) return Status::Ok();  // validation refuses these
  if (selector->Empty()) {
    Report(ds, "Warning", "SelectingAll",
           "This daemon set is selecting all pods. A non-empty selector is "
           "required.");
    return Status::Ok();
  }
  // Its revisions may be going before its pods: no status can be known.
  if (apps::IsBeingDeleted(ds)) return Status::Ok();
  std::vector<json> old;
  KMOCK_ASSIGN_OR_RETURN(std::string hash, ConstructHistory(ds, &old));
  // Before the pods are listed: a pod created by the last sync that the
  // informer shows only now must not satisfy it after a list without it.
  const bool acted = expectations_.Satisfied(key);
  std::vector<ObjectPtr> held;
  KMOCK_ASSIGN_OR_RETURN(std::vector<daemonset::NodeState> nodes,
                         NodeStates(ds, &held));
  std::optional<std::string> error;
  if (acted) {
    daemonset::Plan plan = daemonset::ManageNodes(ds, nodes, hash);
    plan.failed_pods = FailedPodsToDelete(ds, plan);
    error = Execute(ds, hash, plan);
    if (!error && expectations_.Satisfied(key)) {
      const std::string type =
          StringAt(ObjectAt(ObjectAt(ds, "spec"), "updateStrategy"), "type");
      if (type == "RollingUpdate") {
        error = Execute(
            ds, hash, daemonset::RollingUpdate(ds, nodes, hash, clock_->Now()));
      }
    }
    if (!error && expectations_.Satisfied(key)) {
      Status st = CleanupHistory(ds, old, nodes);
      if (!st.ok()) error = st.message();
    }
  }
  const TimePoint now = clock_->Now();
  json status = daemonset::ComputeStatus(ds, nodes, hash, now);
  const json& current = ObjectAt(ds, "status");
  status["observedGeneration"] =
      acted ? apps::IntAt(ds, {"metadata", "generation"})
            : apps::IntAt(current, {"observedGeneration"});
  if (current.contains("collisionCount")) {
    status["collisionCount"] = current["collisionCount"];
  }
  if (current.contains("conditions")) {
    status["conditions"] = current["conditions"];
  }
  if (status != current) {
    Status st = IgnoreRoutineWriteErrors(WriteStatus(ds, status));
    if (!st.ok()) return st;
  }
  const int64_t min_ready = apps::IntAt(ds, {"spec", "minReadySeconds"});
  if (min_ready > 0 && apps::IntAt(status, {"numberReady"}) !=
                           apps::IntAt(status, {"numberAvailable"})) {
    queue_.AddAfter(key, std::chrono::seconds(min_ready));
  }
  if (error) return InternalError(*error);
  return Status::Ok();
}

Result<std::string> DaemonSetController::ConstructHistory(
    const json& ds, std::vector<json>* old) {
  const std::string uid = UidOf(ds);
  std::vector<json> current;
  int64_t max_old = 0;
  for (const ObjectPtr& r :
       revisions_->ByIndex(kByControllerIndex, "uid:" + uid)) {
    if (daemonset::RevisionMatches(ds, *r)) {
      current.push_back(*r);
    } else {
      old->push_back(*r);
      max_old = std::max(max_old, daemonset::RevisionNumber(*r));
    }
  }
  const int64_t next = max_old + 1;
  if (current.empty()) {
    json revision = daemonset::NewRevision(ds, next, OwnerRef(ds));
    const std::string name = StringAt(ObjectAt(revision, "metadata"), "name");
    auto made = registry_->Create(*res_.controllerrevisions, NamespaceOf(ds),
                                  revision, Write());
    if (made.ok()) return daemonset::RevisionHash(ds);
    if (made.status().code() != StatusCode::kAlreadyExists) {
      return made.status();
    }
    auto existing =
        registry_->Get(*res_.controllerrevisions, NamespaceOf(ds), name);
    if (!existing.ok()) return existing.status();
    if (daemonset::RevisionMatches(ds, *existing)) {
      return daemonset::RevisionHash(ds);
    }
    // Another template has this name: count the collision and try again
    // with the next hash.
    const std::string seen_count =
        ValueAt(ObjectAt(ds, "status"), "collisionCount").dump();
    auto bumped = registry_->GuaranteedUpdateShared(
        *res_.daemonsets, NamespaceOf(ds), NameOf(ds), "status",
        [&](json& obj) -> Status {
          if (UidOf(obj) != uid) return NotFoundError("daemon set replaced");
          json& count = obj["status"]["collisionCount"];
          if (count.dump() != seen_count) {
            return Status(StatusCode::kConflict, "stale collision count");
          }
          count = (count.is_number_integer() ? count.get<int64_t>() : 0) + 1;
          return Status::Ok();
        },
        Write());
    if (!bumped.ok()) return bumped.status();
    return Status(StatusCode::kConflict,
                  "found a hash collision for DaemonSet \"" + NameOf(ds) +
                      "\"; will retry");
  }
  // Keep the newest of equal revisions; renumber it when it is older than
  // another revision.
  std::sort(current.begin(), current.end(), [](const json& a, const json& b) {
    return daemonset::RevisionNumber(a) > daemonset::RevisionNumber(b);
  });
  const json& keep = current.front();
  for (size_t i = 1; i < current.size(); ++i) {
    registry::DeleteOptions del;
    del.user = Write().user;
    (void)registry_->Delete(*res_.controllerrevisions, NamespaceOf(ds),
                            NameOf(current[i]), del);
  }
  const std::string hash =
      StringAt(ObjectAt(ObjectAt(keep, "metadata"), "labels"),
               daemonset::kRevisionHashLabel);
  if (daemonset::RevisionNumber(keep) < next) {
    auto renumbered = registry_->GuaranteedUpdateShared(
        *res_.controllerrevisions, NamespaceOf(ds), NameOf(keep), "",
        [&](json& obj) -> Status {
          obj["revision"] = next;
          return Status::Ok();
        },
        Write());
    Status st = renumbered.ok() ? Status::Ok() : renumbered.status();
    KMOCK_RETURN_IF_ERROR(IgnoreRoutineWriteErrors(st));
  }
  return hash.empty() ? daemonset::RevisionHash(ds) : hash;
}

Result<std::vector<daemonset::NodeState>> DaemonSetController::NodeStates(
    const json& ds, std::vector<ObjectPtr>* held) {
  auto selector = SelectorOf(ds);
  if (!selector.ok()) return selector.status();
  const std::string uid = UidOf(ds);
  std::vector<ObjectPtr> candidates =
      pods_->ByIndex(kByControllerIndex, "uid:" + uid);
  for (ObjectPtr& p :
       pods_->ByIndex(kByControllerIndex, "orphan:" + NamespaceOf(ds))) {
    candidates.push_back(std::move(p));
  }
  std::optional<bool> can_adopt;
  std::map<std::string, std::vector<const json*>> by_node;
  for (const ObjectPtr& p : candidates) {
    const json& pod = *p;
    const json& md = ObjectAt(pod, "metadata");
    const bool terminal =
        StringAt(ObjectAt(pod, "status"), "phase") == "Succeeded" ||
        StringAt(ObjectAt(pod, "status"), "phase") == "Failed";
    if (terminal && md.contains("deletionTimestamp")) continue;
    const bool matches = selector->Matches(ObjectAt(md, "labels"));
    if (apps::ControllerRefOf(pod) != nullptr) {
      if (!matches) {
        Status st = IgnoreRoutineWriteErrors(PatchPodOwner(ds, pod, false));
        if (!st.ok()) return st;
        continue;
      }
    } else {
      if (!matches || apps::IsBeingDeleted(pod)) continue;
      if (!can_adopt) {
        auto fresh =
            registry_->Get(*res_.daemonsets, NamespaceOf(ds), NameOf(ds));
        can_adopt =
            fresh.ok() && UidOf(*fresh) == uid && !apps::IsBeingDeleted(*fresh);
      }
      if (!*can_adopt) continue;
      Status st = PatchPodOwner(ds, pod, true);
      if (!st.ok()) {
        KMOCK_RETURN_IF_ERROR(IgnoreRoutineWriteErrors(st));
        continue;
      }
    }
    const std::string node = daemonset::TargetNode(pod);
    if (node.empty()) continue;
    held->push_back(p);
    by_node[node].push_back(&pod);
  }
  std::vector<daemonset::NodeState> out;
  const json daemon_pod = daemonset::DaemonPodForFit(ds);
  for (const ObjectPtr& node : nodes_->List()) {
    daemonset::NodeState state;
    state.name = NameOf(*node);
    state.fit = daemonset::FitOnNode(daemon_pod, *node);
    auto it = by_node.find(state.name);
    if (it != by_node.end()) {
      state.pods = std::move(it->second);
      daemonset::SortDaemonPods(&state.pods);
    }
    out.push_back(std::move(state));
  }
  std::sort(out.begin(), out.end(),
            [](const daemonset::NodeState& a, const daemonset::NodeState& b) {
              return a.name < b.name;
            });
  return out;
}

void DaemonSetController::ForgetBackoff(const std::string& uid) {
  std::lock_guard<std::mutex> l(backoff_mu_);
  const std::string prefix = uid + "/";
  for (auto it = backoff_.lower_bound(prefix);
       it != backoff_.end() && it->first.rfind(prefix, 0) == 0;) {
    it = backoff_.erase(it);
  }
}

std::vector<const json*> DaemonSetController::FailedPodsToDelete(
    const json& ds, const daemonset::Plan& plan) {
  std::vector<const json*> out;
  const TimePoint now = clock_->Now();
  std::lock_guard<std::mutex> l(backoff_mu_);
  for (const json* pod : plan.failed_pods) {
    const std::string node = daemonset::TargetNode(*pod);
    Backoff& b = backoff_[UidOf(ds) + "/" + node];
    if (b.delay.count() > 0 && now - b.last < b.delay) {
      queue_.AddAfter(KeyOf(ds), b.delay - (now - b.last));
      continue;
    }
    const bool expired =
        b.delay.count() == 0 || now - b.last > 2 * kFailedPodBackoffMax;
    b.delay = expired ? std::chrono::nanoseconds(kFailedPodBackoffInitial)
                      : std::min<std::chrono::nanoseconds>(
                            2 * b.delay, kFailedPodBackoffMax);
    b.last = now;
    Report(ds, "Warning", "FailedDaemonPod",
           "Found failed daemon pod " + NamespaceOf(*pod) + "/" + NameOf(*pod) +
               " on node " + node + ", will try to kill it");
    out.push_back(pod);
  }
  return out;
}

std::optional<std::string> DaemonSetController::Execute(
    const json& ds, const std::string& hash, const daemonset::Plan& plan) {
  std::vector<const json*> victims = plan.delete_pods;
  victims.insert(victims.end(), plan.failed_pods.begin(),
                 plan.failed_pods.end());
  const size_t burst = static_cast<size_t>(options_.burst_replicas);
  const size_t creates = std::min(plan.create_on.size(), burst);
  if (victims.size() > burst) victims.resize(burst);
  if (creates == 0 && victims.empty()) return std::nullopt;
  const std::string key = KeyOf(ds);
  std::vector<std::string> victim_keys;
  for (const json* p : victims) victim_keys.push_back(KeyOf(*p));
  expectations_.Expect(key, static_cast<int>(creates), victim_keys);
  std::optional<std::string> error;
  const json owner = OwnerRef(ds);
  const apps::SlowStartResult made =
      apps::SlowStart(static_cast<int64_t>(creates), [&](int64_t i) -> Status {
        json pod = daemonset::NewDaemonPod(
            ds, plan.create_on[static_cast<size_t>(i)], hash, owner);
        auto r = registry_->Create(*res_.pods, NamespaceOf(ds), pod, Write());
        if (r.ok()) {
          Report(ds, "Normal", "SuccessfulCreate",
                 "Created pod: " + NameOf(r->object));
          return Status::Ok();
        }
        expectations_.CreationObserved(key);
        if (apps::IsNamespaceTerminating(r.status())) return Status::Ok();
        Report(ds, "Warning", "FailedCreate",
               "Error creating: " + r.status().message());
        return r.status();
      });
  if (!made.first_error.ok()) error = made.first_error.message();
  for (int64_t i = made.attempted; i < static_cast<int64_t>(creates); ++i) {
    expectations_.CreationObserved(key);
  }
  for (const json* pod : victims) {
    registry::DeleteOptions del;
    del.precondition_uid = UidOf(*pod);
    del.user = Write().user;
    auto r =
        registry_->Delete(*res_.pods, NamespaceOf(*pod), NameOf(*pod), del);
    if (r.ok()) {
      Report(ds, "Normal", "SuccessfulDelete", "Deleted pod: " + NameOf(*pod));
      continue;
    }
    expectations_.DeletionObserved(key, KeyOf(*pod));
    if (r.status().code() == StatusCode::kNotFound) continue;
    Report(ds, "Warning", "FailedDelete",
           "Error deleting: " + r.status().message());
    if (!error) error = r.status().message();
  }
  return error;
}

Status DaemonSetController::CleanupHistory(
    const json& ds, const std::vector<json>& old,
    const std::vector<daemonset::NodeState>& nodes) {
  std::set<std::string> live;
  for (const daemonset::NodeState& n : nodes) {
    for (const json* p : n.pods) {
      const std::string& h =
          StringAt(ObjectAt(ObjectAt(*p, "metadata"), "labels"),
                   daemonset::kRevisionHashLabel);
      if (!h.empty()) live.insert(h);
    }
  }
  for (const std::string& name : daemonset::HistoryToDelete(ds, old, live)) {
    registry::DeleteOptions del;
    del.user = Write().user;
    auto r = registry_->Delete(*res_.controllerrevisions, NamespaceOf(ds), name,
                               del);
    if (!r.ok()) KMOCK_RETURN_IF_ERROR(IgnoreRoutineWriteErrors(r.status()));
  }
  return Status::Ok();
}

Status DaemonSetController::WriteStatus(const json& ds, json status) {
  const std::string uid = UidOf(ds);
  auto r = registry_->GuaranteedUpdateShared(
      *res_.daemonsets, NamespaceOf(ds), NameOf(ds), "status",
      [&](json& obj) -> Status {
        if (UidOf(obj) != uid) return NotFoundError("daemon set was replaced");
        // A collision counted meanwhile stays.
        const json& stored = ObjectAt(obj, "status");
        if (stored.contains("collisionCount")) {
          status["collisionCount"] = stored["collisionCount"];
        }
        obj["status"] = status;
        return Status::Ok();
      },
      Write());
  return r.ok() ? Status::Ok() : r.status();
}

Status DaemonSetController::PatchPodOwner(const json& ds, const json& pod,
                                          bool adopt) {
  const std::string pod_uid = UidOf(pod);
  const std::string uid = UidOf(ds);
  const json ref = OwnerRef(ds);
  auto r = registry_->GuaranteedUpdateShared(
      *res_.pods, NamespaceOf(pod), NameOf(pod), "",
      [&](json& obj) -> Status {
        if (UidOf(obj) != pod_uid) return NotFoundError("pod was replaced");
        if (adopt) return apps::AddControllerRef(&obj, ref);
        apps::DropOwnerRef(&obj, uid);
        return Status::Ok();
      },
      Write());
  return r.ok() ? Status::Ok() : r.status();
}

}  // namespace kmock::controllers
