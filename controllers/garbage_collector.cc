#include "controllers/garbage_collector.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "controllers/controller_write.h"

namespace kmock::controllers {

namespace {

// The queue key of the periodic resync (uids never look like this).
constexpr char kResyncKey[] = "#resync";

std::string UidOf(const json& obj) {
  auto md = obj.find("metadata");
  if (md == obj.end() || !md->is_object()) return "";
  return md->value("uid", "");
}

registry::WriteOptions CollectorWrite() {
  return ControllerWrite("generic-garbage-collector");
}

// The mutation aborts when the object was replaced by one of the same name.
Status CheckUid(const json& obj, const std::string& uid) {
  if (UidOf(obj) != uid) {
    return Status(StatusCode::kNotFound, "object was replaced");
  }
  return Status::Ok();
}

bool Gone(const Status& st) { return st.code() == StatusCode::kNotFound; }

}  // namespace

GarbageCollector::GarbageCollector(registry::Registry* registry,
                                   const Clock* clock, Rng* /*rng*/,
                                   GarbageCollectorOptions options)
    : registry_(registry), options_(std::move(options)), queue_(clock) {
  for (const api::ResourceInfo* res : WatchedResources()) {
    Informer* inf = nullptr;
    if (auto shared = options_.shared_informers.find(res);
        shared != options_.shared_informers.end()) {
      inf = shared->second;
    } else {
      // Like kube-controller-manager's collector, which watches
      // PartialObjectMetadata: the graph needs owners, finalizers and UIDs.
      InformerOptions io;
      io.metadata_only = true;
      own_informers_.push_back(std::make_unique<Informer>(registry_, res, io));
      inf = own_informers_.back().get();
    }
    inf->AddHandlers(EventHandlers{
        .on_add = [this, res](const json& obj) { OnUpsert(res, obj); },
        .on_update =
            [this, res](const json& old_obj, const json& obj) {
              if (UidOf(old_obj) != UidOf(obj)) OnDelete(old_obj);
              OnUpsert(res, obj);
            },
        .on_delete = [this](const json& obj) { OnDelete(obj); },
    });
    informers_.push_back(inf);
  }
}

GarbageCollector::~GarbageCollector() { Stop(); }

std::vector<const api::ResourceInfo*> GarbageCollector::WatchedResources()
    const {
  std::vector<const api::ResourceInfo*> out;
  for (const api::ResourceInfo* res : registry_->catalog().resources()) {
    if (!res->HasVerb("list") || !res->HasVerb("watch") ||
        !res->HasVerb("get")) {
      continue;
    }
    // One view of objects stored under another resource is enough, and
    // events are left alone, as upstream's collector ignores them.
    if (res->from_storage || res->kind == "Event") continue;
    out.push_back(res);
  }
  return out;
}

void GarbageCollector::Start() {
  if (started_) return;
  started_ = true;
  registry_->set_garbage_collection(true);
  // As upstream's collector, the workers wait for the caches (the graph
  // must know every owner first). The informers start one after another
  // on a thread of their own, beside the rest of start-up: started all at
  // once, some sixty threads listing together held up the cluster's own
  // start by tens of milliseconds on two cores.
  starter_ = std::thread([this] {
    if (options_.may_start_informers) {
      const auto give_up =
          std::chrono::steady_clock::now() + options_.start_wait;
      while (!stopping_.load() && !options_.may_start_informers() &&
             std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    const auto deadline =
        std::chrono::steady_clock::now() + options_.sync_timeout;
    for (auto& inf : own_informers_) {
      if (stopping_.load()) return;
      inf->Start();
      inf->WaitForSync(std::chrono::milliseconds(20));
    }
    for (Informer* inf : informers_) {
      while (!inf->WaitForSync(std::chrono::milliseconds(20))) {
        if (stopping_.load()) return;
        if (std::chrono::steady_clock::now() >= deadline) {
          Log("informers did not sync in time; starting anyway");
          break;
        }
      }
    }
    std::lock_guard<std::mutex> lock(start_mu_);
    if (stopping_.load()) return;
    queue_.AddAfter(kResyncKey, options_.resync);
    workers_ = std::make_unique<WorkerPool>(
        "garbage collector", &queue_, options_.workers,
        [this](const std::string& key) { return Sync(key); });
  });
}

void GarbageCollector::Stop() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  {
    std::lock_guard<std::mutex> lock(start_mu_);
    stopping_.store(true);
  }
  if (starter_.joinable()) starter_.join();
  if (workers_) workers_->Stop();
  for (auto& inf : own_informers_) inf->Stop();
  registry_->set_garbage_collection(false);
}

void GarbageCollector::Log(const std::string& msg) const {
  if (options_.verbose) {
    std::fprintf(stderr, "garbage collector: %s\n", msg.c_str());
  }
}

void GarbageCollector::OnUpsert(const api::ResourceInfo* res, const json& obj) {
  GraphNode node = NodeFromObject(res, obj);
  if (node.uid.empty()) return;
  std::optional<GraphNode> old = graph_.Upsert(node);

  if (NeedsWork(node)) queue_.Add(node.uid);

  if (old) {
    // An owner waiting in the foreground may have lost a blocker.
    for (const auto& ref : old->owners) {
      const OwnerReference* now = node.OwnerRef(ref.uid);
      if (now != nullptr && *now == ref) continue;
      std::optional<GraphNode> owner = graph_.Get(ref.uid);
      if (owner && owner->deleting) queue_.Add(ref.uid);
    }
  }
}

void GarbageCollector::OnDelete(const json& obj) {
  std::string uid = UidOf(obj);
  if (uid.empty()) return;
  std::optional<GraphNode> removed = graph_.Remove(uid);
  for (const auto& dep : graph_.DependentsOf(uid)) queue_.Add(dep);
  if (!removed) return;
  for (const auto& ref : removed->owners) {
    std::optional<GraphNode> owner = graph_.Get(ref.uid);
    if (owner && owner->deleting) queue_.Add(ref.uid);
  }
}

bool GarbageCollector::NeedsWork(const GraphNode& node) const {
  if (node.deleting && (node.HasFinalizer(kOrphanFinalizer) ||
                        node.HasFinalizer(kForegroundFinalizer))) {
    return true;
  }
  for (const auto& ref : node.owners) {
    std::optional<GraphNode> owner = graph_.Get(ref.uid);
    // An owner not seen (yet, or any more) or one being deleted: look at
    // the dependent (Sync reads the owners through the registry).
    if (!owner || owner->deleting) return true;
  }
  return false;
}

void GarbageCollector::Resync() {
  for (const auto& uid : graph_.NodesNeedingAttention()) {
    std::optional<GraphNode> node = graph_.Get(uid);
    if (node && NeedsWork(*node)) queue_.Add(uid);
  }
  queue_.AddAfter(kResyncKey, options_.resync);
}

Status GarbageCollector::Sync(const std::string& uid) {
  if (uid == kResyncKey) {
    Resync();
    return Status::Ok();
  }
  std::optional<GraphNode> cached = graph_.Get(uid);
  if (!cached) return Status::Ok();  // gone; its dependents were queued
  // Never act on the cache alone: read the object again.
  auto live = registry_->Get(*cached->resource, cached->ns, cached->name);
  if (!live.ok()) {
    return Gone(live.status()) ? Status::Ok() : live.status();
  }
  if (UidOf(*live) != uid) return Status::Ok();
  GraphNode node = NodeFromObject(cached->resource, *live);

  if (node.deleting) {
    if (node.HasFinalizer(kOrphanFinalizer)) {
      KMOCK_RETURN_IF_ERROR(OrphanDependents(node));
    }
    if (node.HasFinalizer(kForegroundFinalizer)) {
      return ProcessDeletingDependents(node);
    }
    return Status::Ok();  // being deleted: nothing for the collector
  }
  return AttemptToCollect(node);
}

Result<std::vector<GraphNode>> GarbageCollector::LiveDependents(
    const GraphNode& owner) {
  std::vector<GraphNode> out;
  for (const api::ResourceInfo* res : WatchedResources()) {
    // Namespaced owners only have dependents in their own namespace.
    if (!owner.ns.empty() && !res->namespaced) continue;
    auto list = registry_->List(*res, owner.ns, registry::ListOptions{});
    if (!list.ok()) return list.status();
    for (const json& item : (*list)["items"]) {
      GraphNode n = NodeFromObject(res, item);
      if (n.OwnerRef(owner.uid) != nullptr) out.push_back(std::move(n));
    }
  }
  return out;
}

Status GarbageCollector::OrphanDependents(const GraphNode& owner) {
  // Orphaning cannot be undone by a later event: read the dependents
  // through the registry rather than from the graph.
  KMOCK_ASSIGN_OR_RETURN(std::vector<GraphNode> deps, LiveDependents(owner));
  for (const auto& dep : deps) {
    Status st = RemoveOwnerReferences(dep, {owner.uid});
    if (!st.ok() && !Gone(st)) return st;
  }
  Log("orphaned " + std::to_string(deps.size()) + " dependent(s) of " +
      owner.Describe());
  return RemoveFinalizer(owner, kOrphanFinalizer);
}

Status GarbageCollector::ProcessDeletingDependents(const GraphNode& owner) {
  // Each dependent decides for itself (its other owners may keep it); its
  // removal brings the owner back here.
  for (const auto& dep : graph_.DependentsOf(owner.uid)) queue_.Add(dep);
  if (!graph_.BlockingDependentsOf(owner.uid).empty()) return Status::Ok();
  // The graph says none is left; confirm before letting the owner go.
  KMOCK_ASSIGN_OR_RETURN(std::vector<GraphNode> deps, LiveDependents(owner));
  for (const auto& dep : deps) {
    const OwnerReference* ref = dep.OwnerRef(owner.uid);
    if (ref != nullptr && ref->block_owner_deletion) {
      // Not seen yet: its arrival in the graph queues it.
      return Status::Ok();
    }
  }
  Log("no blocking dependents left for " + owner.Describe());
  return RemoveFinalizer(owner, kForegroundFinalizer);
}

Result<OwnerState> GarbageCollector::ClassifyOwner(const GraphNode& dependent,
                                                   const OwnerReference& ref) {
  OwnerLocation loc = LocateOwner(registry_->catalog(), ref, dependent.ns);
  if (loc.resource == nullptr || !loc.resolvable) {
    Log(dependent.Describe() + ": cannot resolve owner " + ref.api_version +
        "/" + ref.kind + " " + ref.name);
    return OwnerState::kUnresolvable;
  }
  auto owner = registry_->Get(*loc.resource, loc.ns, ref.name);
  if (!owner.ok()) {
    if (Gone(owner.status())) return OwnerState::kDangling;
    return owner.status();
  }
  GraphNode o = NodeFromObject(loc.resource, *owner);
  if (o.uid != ref.uid) return OwnerState::kDangling;
  if (o.deleting && o.HasFinalizer(kForegroundFinalizer)) {
    return OwnerState::kWaiting;
  }
  return OwnerState::kSolid;
}

Status GarbageCollector::AttemptToCollect(const GraphNode& dependent) {
  if (dependent.owners.empty()) return Status::Ok();
  std::vector<ClassifiedOwner> owners;
  for (const auto& ref : dependent.owners) {
    KMOCK_ASSIGN_OR_RETURN(OwnerState state, ClassifyOwner(dependent, ref));
    owners.push_back(ClassifiedOwner{ref, state});
  }
  CollectDecision d = DecideForDependent(dependent, owners,
                                         graph_.HasDependents(dependent.uid));
  switch (d.action) {
    case CollectDecision::Action::kNone:
      return Status::Ok();
    case CollectDecision::Action::kRemoveReferences: {
      Status st = RemoveOwnerReferences(dependent, d.remove_owner_uids);
      return Gone(st) ? Status::Ok() : st;
    }
    case CollectDecision::Action::kDelete:
      return DeleteObject(dependent, d.propagation_policy);
  }
  return Status::Ok();
}

Status GarbageCollector::RemoveOwnerReferences(
    const GraphNode& dependent, const std::vector<std::string>& owner_uids) {
  std::set<std::string> drop(owner_uids.begin(), owner_uids.end());
  auto r = registry_->GuaranteedUpdate(
      *dependent.resource, dependent.ns, dependent.name, "",
      [&](json& obj) -> Status {
        KMOCK_RETURN_IF_ERROR(CheckUid(obj, dependent.uid));
        json& md = obj["metadata"];
        auto refs = md.find("ownerReferences");
        if (refs == md.end() || !refs->is_array()) return Status::Ok();
        json kept = json::array();
        for (const json& ref : *refs) {
          if (ref.is_object() && drop.count(ref.value("uid", ""))) continue;
          kept.push_back(ref);
        }
        if (kept.empty()) {
          md.erase("ownerReferences");
        } else {
          *refs = std::move(kept);
        }
        return Status::Ok();
      },
      CollectorWrite());
  if (!r.ok()) return r.status();
  Log("removed " + std::to_string(drop.size()) + " owner reference(s) from " +
      dependent.Describe());
  return Status::Ok();
}

Status GarbageCollector::RemoveFinalizer(const GraphNode& node,
                                         const std::string& finalizer) {
  auto r = registry_->GuaranteedUpdate(
      *node.resource, node.ns, node.name, "",
      [&](json& obj) -> Status {
        KMOCK_RETURN_IF_ERROR(CheckUid(obj, node.uid));
        json& md = obj["metadata"];
        auto fins = md.find("finalizers");
        if (fins == md.end() || !fins->is_array()) return Status::Ok();
        fins->erase(std::remove(fins->begin(), fins->end(), json(finalizer)),
                    fins->end());
        if (fins->empty()) md.erase("finalizers");
        return Status::Ok();
      },
      CollectorWrite());
  if (!r.ok()) return Gone(r.status()) ? Status::Ok() : r.status();
  Log("removed finalizer " + finalizer + " from " + node.Describe());
  return Status::Ok();
}

Status GarbageCollector::DeleteObject(const GraphNode& node,
                                      const std::string& policy) {
  registry::DeleteOptions opts;
  opts.propagation_policy = policy;
  opts.precondition_uid = node.uid;
  opts.user = CollectorWrite().user;
  auto r = registry_->Delete(*node.resource, node.ns, node.name, opts);
  if (!r.ok()) {
    // Gone already, or replaced by another object of the same name.
    if (Gone(r.status()) || r.status().code() == StatusCode::kConflict) {
      return Status::Ok();
    }
    return r.status();
  }
  Log("deleted " + node.Describe() + " (propagationPolicy " + policy + ")");
  return Status::Ok();
}

}  // namespace kmock::controllers
