// The garbage collector's view of the cluster: every object it watches,
// reduced to its identity, its ownerReferences, its finalizers and whether
// it is being deleted, with an index from each owner uid to the uids of the
// objects that name it as owner. Owners need not be in the graph (an owner
// that was never seen or is already gone is still a key of the index).
//
// Also the pure rules of collection: how an ownerReference resolves to a
// served resource and namespace, and what to do with a dependent given the
// state of each of its owners (OwnerState), as kube-controller-manager's
// garbage collector decides it.
//
// Thread safety: OwnerGraph is safe for concurrent use from any thread; the
// free functions are pure.
#ifndef KMOCK_CONTROLLERS_GC_GRAPH_H_
#define KMOCK_CONTROLLERS_GC_GRAPH_H_

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource.h"

namespace kmock::controllers {

using nlohmann::json;

inline constexpr char kOrphanFinalizer[] = "orphan";
inline constexpr char kForegroundFinalizer[] = "foregroundDeletion";

// One entry of metadata.ownerReferences.
struct OwnerReference {
  std::string api_version;  // "apps/v1"
  std::string kind;         // "ReplicaSet"
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;

  bool operator==(const OwnerReference&) const = default;
};

struct GraphNode {
  const api::ResourceInfo* resource = nullptr;
  std::string ns;  // "" for cluster-scoped objects
  std::string name;
  std::string uid;
  std::vector<OwnerReference> owners;
  std::vector<std::string> finalizers;  // metadata.finalizers
  bool deleting = false;                // metadata.deletionTimestamp is set

  bool HasFinalizer(std::string_view f) const;
  // The reference to this owner uid, if the node has one.
  const OwnerReference* OwnerRef(std::string_view owner_uid) const;
  // "pods default/web-1" for logs.
  std::string Describe() const;
};

// metadata.ownerReferences of obj (entries without a uid are skipped).
std::vector<OwnerReference> OwnerReferencesOf(const json& obj);
// The graph's view of obj, a served object of resource res.
GraphNode NodeFromObject(const api::ResourceInfo* res, const json& obj);

// Where an owner named by ref lives, for a dependent in namespace
// dependent_ns ("" = cluster-scoped). resource is null when the kind is not
// served; resolvable is false when the reference can never be checked (a
// cluster-scoped dependent naming a namespaced kind).
struct OwnerLocation {
  const api::ResourceInfo* resource = nullptr;
  std::string ns;
  bool resolvable = false;
};
OwnerLocation LocateOwner(const api::Catalog& catalog,
                          const OwnerReference& ref,
                          std::string_view dependent_ns);

enum class OwnerState {
  kSolid,         // exists with the referenced uid and is not waiting
  kDangling,      // absent, or present with another uid
  kWaiting,       // exists, being deleted with foregroundDeletion
  kUnresolvable,  // cannot be looked up; never collected because of it
};

struct ClassifiedOwner {
  OwnerReference ref;
  OwnerState state = OwnerState::kSolid;
};

struct CollectDecision {
  enum class Action { kNone, kRemoveReferences, kDelete };
  Action action = Action::kNone;
  // kRemoveReferences: the owner uids whose references go.
  std::vector<std::string> remove_owner_uids;
  // kDelete: the propagationPolicy of the dependent's own delete.
  std::string propagation_policy;
};

// What to do with a dependent that is not being deleted, given its owners.
// has_dependents: whether anything names the dependent as owner.
CollectDecision DecideForDependent(const GraphNode& dependent,
                                   const std::vector<ClassifiedOwner>& owners,
                                   bool has_dependents);

class OwnerGraph {
 public:
  OwnerGraph() = default;
  OwnerGraph(const OwnerGraph&) = delete;
  OwnerGraph& operator=(const OwnerGraph&) = delete;

  // Inserts or replaces the node with node.uid; returns the previous one.
  std::optional<GraphNode> Upsert(GraphNode node);
  // Removes the node; returns it (nullopt if it was not there). Objects
  // that name it as owner keep their entries in the index.
  std::optional<GraphNode> Remove(const std::string& uid);
  std::optional<GraphNode> Get(const std::string& uid) const;
  bool Contains(const std::string& uid) const;
  // The uids of the nodes naming owner_uid in their ownerReferences.
  std::vector<std::string> DependentsOf(const std::string& owner_uid) const;
  // Those of DependentsOf whose reference has blockOwnerDeletion=true.
  std::vector<std::string> BlockingDependentsOf(
      const std::string& owner_uid) const;
  bool HasDependents(const std::string& owner_uid) const;
  // Every node that has owners or waits for the collector (deleting with
  // the orphan or foregroundDeletion finalizer): what a resync looks at.
  std::vector<std::string> NodesNeedingAttention() const;
  size_t size() const;

 private:
  void IndexLocked(const GraphNode& node, bool add);

  mutable std::mutex mu_;
  std::map<std::string, GraphNode> nodes_;  // uid -> node; GUARDED_BY(mu_)
  // owner uid -> dependent uids; GUARDED_BY(mu_)
  std::map<std::string, std::set<std::string>> dependents_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_GC_GRAPH_H_
