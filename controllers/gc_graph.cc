#include "controllers/gc_graph.h"

#include <algorithm>

namespace kmock::controllers {

namespace {

const json& MetaOf(const json& obj) {
  static const json kEmpty = json::object();
  auto it = obj.find("metadata");
  return (it != obj.end() && it->is_object()) ? *it : kEmpty;
}

std::string StringField(const json& obj, const char* field) {
  auto it = obj.find(field);
  return (it != obj.end() && it->is_string()) ? it->get<std::string>() : "";
}

bool BoolField(const json& obj, const char* field) {
  auto it = obj.find(field);
  return it != obj.end() && it->is_boolean() && it->get<bool>();
}

void SplitApiVersion(const std::string& api_version, std::string* group,
                     std::string* version) {
  auto slash = api_version.find('/');
  if (slash == std::string::npos) {
    group->clear();
    *version = api_version;
  } else {
    *group = api_version.substr(0, slash);
    *version = api_version.substr(slash + 1);
  }
}

}  // namespace

bool GraphNode::HasFinalizer(std::string_view f) const {
  return std::find(finalizers.begin(), finalizers.end(), f) != finalizers.end();
}

const OwnerReference* GraphNode::OwnerRef(std::string_view owner_uid) const {
  for (const auto& o : owners) {
    if (o.uid == owner_uid) return &o;
  }
  return nullptr;
}

std::string GraphNode::Describe() const {
  std::string what = resource ? resource->QualifiedName() : "?";
  return what + " " + (ns.empty() ? name : ns + "/" + name) + " (" + uid + ")";
}

std::vector<OwnerReference> OwnerReferencesOf(const json& obj) {
  std::vector<OwnerReference> out;
  const json& md = MetaOf(obj);
  auto it = md.find("ownerReferences");
  if (it == md.end() || !it->is_array()) return out;
  for (const json& r : *it) {
    if (!r.is_object()) continue;
    OwnerReference ref;
    ref.api_version = StringField(r, "apiVersion");
    ref.kind = StringField(r, "kind");
    ref.name = StringField(r, "name");
    ref.uid = StringField(r, "uid");
    ref.controller = BoolField(r, "controller");
    ref.block_owner_deletion = BoolField(r, "blockOwnerDeletion");
    if (ref.uid.empty()) continue;
    out.push_back(std::move(ref));
  }
  return out;
}

GraphNode NodeFromObject(const api::ResourceInfo* res, const json& obj) {
  const json& md = MetaOf(obj);
  GraphNode n;
  n.resource = res;
  n.ns = StringField(md, "namespace");
  n.name = StringField(md, "name");
  n.uid = StringField(md, "uid");
  n.owners = OwnerReferencesOf(obj);
  auto f = md.find("finalizers");
  if (f != md.end() && f->is_array()) {
    for (const json& s : *f) {
      if (s.is_string()) n.finalizers.push_back(s.get<std::string>());
    }
  }
  auto dt = md.find("deletionTimestamp");
  n.deleting = dt != md.end() && dt->is_string();
  return n;
}

OwnerLocation LocateOwner(const api::Catalog& catalog,
                          const OwnerReference& ref,
                          std::string_view dependent_ns) {
  OwnerLocation loc;
  std::string group, version;
  SplitApiVersion(ref.api_version, &group, &version);
  const api::ResourceInfo* res = catalog.FindByKind(group, version, ref.kind);
  if (res == nullptr) {
    // Another served version of the same group and kind names the same
    // objects.
    for (const api::ResourceInfo* r : catalog.resources()) {
      if (r->group == group && r->kind == ref.kind && !r->from_storage) {
        res = r;
        break;
      }
    }
  }
  if (res == nullptr || !res->HasVerb("get")) return loc;
  loc.resource = res;
  if (!res->namespaced) {
    loc.resolvable = true;
    return loc;
  }
  // A namespaced owner lives in its dependent's namespace; a cluster-scoped
  // dependent cannot name one.
  if (dependent_ns.empty()) return loc;
  loc.ns = std::string(dependent_ns);
  loc.resolvable = true;
  return loc;
}

CollectDecision DecideForDependent(const GraphNode& dependent,
                                   const std::vector<ClassifiedOwner>& owners,
                                   bool has_dependents) {
  CollectDecision d;
  if (owners.empty()) return d;
  bool solid = false;
  bool waiting = false;
  std::vector<std::string> gone;
  for (const auto& o : owners) {
    switch (o.state) {
      case OwnerState::kSolid:
      case OwnerState::kUnresolvable:
        solid = true;
        break;
      case OwnerState::kWaiting:
        waiting = true;
        gone.push_back(o.ref.uid);
        break;
      case OwnerState::kDangling:
        gone.push_back(o.ref.uid);
        break;
    }
  }
  if (solid) {
    // Another owner keeps it: only the references to absent owners and to
    // owners deleting in the foreground go.
    if (!gone.empty()) {
      d.action = CollectDecision::Action::kRemoveReferences;
      d.remove_owner_uids = std::move(gone);
    }
    return d;
  }
  d.action = CollectDecision::Action::kDelete;
  if (waiting && has_dependents) {
    // An owner waits for the whole subtree: this one waits for its own.
    d.propagation_policy = "Foreground";
  } else if (dependent.HasFinalizer(kOrphanFinalizer)) {
    d.propagation_policy = "Orphan";
  } else if (dependent.HasFinalizer(kForegroundFinalizer)) {
    d.propagation_policy = "Foreground";
  } else {
    d.propagation_policy = "Background";
  }
  return d;
}

void OwnerGraph::IndexLocked(const GraphNode& node, bool add) {
  for (const auto& o : node.owners) {
    if (add) {
      dependents_[o.uid].insert(node.uid);
      continue;
    }
    auto it = dependents_.find(o.uid);
    if (it == dependents_.end()) continue;
    it->second.erase(node.uid);
    if (it->second.empty()) dependents_.erase(it);
  }
}

std::optional<GraphNode> OwnerGraph::Upsert(GraphNode node) {
  std::lock_guard<std::mutex> l(mu_);
  std::optional<GraphNode> old;
  auto it = nodes_.find(node.uid);
  if (it != nodes_.end()) {
    old = std::move(it->second);
    IndexLocked(*old, false);
  }
  IndexLocked(node, true);
  std::string uid = node.uid;
  nodes_[uid] = std::move(node);
  return old;
}

std::optional<GraphNode> OwnerGraph::Remove(const std::string& uid) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = nodes_.find(uid);
  if (it == nodes_.end()) return std::nullopt;
  GraphNode node = std::move(it->second);
  nodes_.erase(it);
  IndexLocked(node, false);
  return node;
}

std::optional<GraphNode> OwnerGraph::Get(const std::string& uid) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = nodes_.find(uid);
  if (it == nodes_.end()) return std::nullopt;
  return it->second;
}

bool OwnerGraph::Contains(const std::string& uid) const {
  std::lock_guard<std::mutex> l(mu_);
  return nodes_.count(uid) > 0;
}

std::vector<std::string> OwnerGraph::DependentsOf(
    const std::string& owner_uid) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = dependents_.find(owner_uid);
  if (it == dependents_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

std::vector<std::string> OwnerGraph::BlockingDependentsOf(
    const std::string& owner_uid) const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::string> out;
  auto it = dependents_.find(owner_uid);
  if (it == dependents_.end()) return out;
  for (const auto& dep : it->second) {
    auto n = nodes_.find(dep);
    if (n == nodes_.end()) continue;
    const OwnerReference* ref = n->second.OwnerRef(owner_uid);
    if (ref != nullptr && ref->block_owner_deletion) out.push_back(dep);
  }
  return out;
}

bool OwnerGraph::HasDependents(const std::string& owner_uid) const {
  std::lock_guard<std::mutex> l(mu_);
  return dependents_.count(owner_uid) > 0;
}

std::vector<std::string> OwnerGraph::NodesNeedingAttention() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::string> out;
  for (const auto& [uid, n] : nodes_) {
    bool waits = n.deleting && (n.HasFinalizer(kOrphanFinalizer) ||
                                n.HasFinalizer(kForegroundFinalizer));
    if (!n.owners.empty() || waits) out.push_back(uid);
  }
  return out;
}

size_t OwnerGraph::size() const {
  std::lock_guard<std::mutex> l(mu_);
  return nodes_.size();
}

}  // namespace kmock::controllers
