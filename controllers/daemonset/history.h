// A DaemonSet's history, kept as ControllerRevisions as kube-controller-
// manager keeps it: each revision holds the pod template as a strategic
// merge patch that replaces spec.template ({"spec":{"template":{...,
// "$patch":"replace"}}}, what `kubectl rollout undo` applies), is named
// "<ds>-<hash>" with the hash also in its controller-revision-hash label,
// and numbers the templates in the order they were current.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_CONTROLLERS_DAEMONSET_HISTORY_H_
#define KMOCK_CONTROLLERS_DAEMONSET_HISTORY_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace kmock::controllers::daemonset {

using nlohmann::json;

// The revision data of the DaemonSet's current template.
json RevisionData(const json& ds);
// The hash of the current template with status.collisionCount.
std::string RevisionHash(const json& ds);
// Whether the revision holds the DaemonSet's current template.
bool RevisionMatches(const json& ds, const json& revision);
// A new revision `number` of the current template: labels of the template
// plus the hash, the DaemonSet's annotations (so kubernetes.io/change-cause
// shows in `kubectl rollout history`), `owner_ref` as controller.
json NewRevision(const json& ds, int64_t number, const json& owner_ref);
int64_t RevisionNumber(const json& revision);
// The names of the old revisions beyond revisionHistoryLimit that no live
// pod uses (`live_hashes`), lowest revision first.
std::vector<std::string> HistoryToDelete(
    const json& ds, std::vector<json> old_revisions,
    const std::set<std::string>& live_hashes);

}  // namespace kmock::controllers::daemonset

#endif  // KMOCK_CONTROLLERS_DAEMONSET_HISTORY_H_
