// Revisions and the annotations the Deployment controller keeps on its
// ReplicaSets (pure): deployment.kubernetes.io/revision (and
// revision-history when an old ReplicaSet comes back through a rollback),
// desired-replicas and max-replicas; which ReplicaSet is the new one
// (its template equals the deployment's, ignoring pod-template-hash); and
// which old ReplicaSets history cleanup removes.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_CONTROLLERS_DEPLOYMENT_REVISION_H_
#define KMOCK_CONTROLLERS_DEPLOYMENT_REVISION_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kmock::controllers::deployment {

using nlohmann::json;

inline constexpr char kRevisionAnnotation[] =
    "deployment.kubernetes.io/revision";
inline constexpr char kRevisionHistoryAnnotation[] =
    "deployment.kubernetes.io/revision-history";
inline constexpr char kDesiredReplicasAnnotation[] =
    "deployment.kubernetes.io/desired-replicas";
inline constexpr char kMaxReplicasAnnotation[] =
    "deployment.kubernetes.io/max-replicas";
inline constexpr char kPodTemplateHashLabel[] = "pod-template-hash";

// The revision annotation as a number (0 when absent or malformed).
int64_t Revision(const json& obj);
int64_t MaxRevision(const std::vector<json>& rses);
std::optional<int64_t> DesiredReplicasAnnotation(const json& rs);
std::optional<int64_t> MaxReplicasAnnotation(const json& rs);

// Whether desired-replicas / max-replicas differ from these values.
bool ReplicasAnnotationsNeedUpdate(const json& rs, int64_t desired,
                                   int64_t max);
// Sets them; true when something changed.
bool SetReplicasAnnotations(json* rs, int64_t desired, int64_t max);

// Copies the deployment's own annotations (all but kubectl's
// last-applied-configuration and the controller's) to the ReplicaSet,
// raises its revision to `new_revision` when lower (recording the previous
// one in revision-history when it had one) and, for a ReplicaSet about to
// be created (!exists), sets the replicas annotations. True when changed.
bool SetNewReplicaSetAnnotations(const json& d, json* rs,
                                 const std::string& new_revision, bool exists);

// The deployment's revision annotation set to `revision`; true if changed.
bool SetDeploymentRevision(json* d, const std::string& revision);

// Two pod templates are equal once pod-template-hash is dropped from both.
bool EqualIgnoreHash(const json& t1, const json& t2);

// The oldest ReplicaSet whose template equals the deployment's.
std::optional<json> FindNewReplicaSet(const json& d,
                                      const std::vector<json>& rses);

// The names of the old ReplicaSets history cleanup deletes: beyond
// revisionHistoryLimit, lowest revision first, only those with no replicas
// (spec and status), an up-to-date status and no deletionTimestamp.
std::vector<std::string> HistoryToDelete(const json& d,
                                         const std::vector<json>& old_rses);

}  // namespace kmock::controllers::deployment

#endif  // KMOCK_CONTROLLERS_DEPLOYMENT_REVISION_H_
