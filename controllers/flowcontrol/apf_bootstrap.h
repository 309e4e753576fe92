// kube-apiserver 1.33's API Priority and Fairness bootstrap configuration
// and the pure rules its "priority-and-fairness-config-producer" and
// config consumer follow, kept apart from the loop that writes them
// (apf_configuration.h).
//
// The objects: the mandatory PriorityLevelConfigurations exempt and
// catch-all and FlowSchemas exempt and catch-all, which the server always
// puts back to their bootstrap spec; and the suggested ones (levels system,
// node-high, leader-election, workload-high, workload-low, global-default;
// schemas probes, system-leader-election, endpoint-controller,
// workload-leader-election, system-node-high, system-nodes,
// kube-controller-manager, kube-scheduler, kube-system-service-accounts,
// service-accounts, global-default), created when missing and kept at their
// bootstrap spec only while their annotation
// apf.kubernetes.io/autoupdate-spec says "true" (or, without a boolean
// there, while the object's generation is still 1). Each object is written
// with every default the server would add, so that what is stored equals
// the bootstrap object and a second pass changes nothing. (1.34 brought a
// new set behind the APFv134Config feature; 1.33 serves this one.)
//
// Thread safety: the configuration is built once and immutable; the
// functions are pure.
#ifndef KMOCK_CONTROLLERS_FLOWCONTROL_APF_BOOTSTRAP_H_
#define KMOCK_CONTROLLERS_FLOWCONTROL_APF_BOOTSTRAP_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kmock::controllers {

inline constexpr char kApfAutoUpdateAnnotation[] =
    "apf.kubernetes.io/autoupdate-spec";

struct ApfBootstrapObjects {
  // In the order kube-apiserver ensures them.
  std::vector<nlohmann::json> mandatory_levels;
  std::vector<nlohmann::json> suggested_levels;
  std::vector<nlohmann::json> mandatory_schemas;
  std::vector<nlohmann::json> suggested_schemas;

  std::set<std::string> LevelNames() const;
  std::set<std::string> SchemaNames() const;
};

// The objects of kube-apiserver 1.33 (apiVersion, kind, metadata.name, the
// autoupdate annotation "true", the defaulted spec).
const ApfBootstrapObjects& ApfBootstrapConfiguration();

// What the producer writes over `live` (a stored FlowSchema or
// PriorityLevelConfiguration) for its `bootstrap` object: the spec put back
// when it may be updated and differs, and the annotation set to whether it
// may; nullopt when nothing is to change. A mandatory object may always be
// updated, except that the exempt level keeps its own
// spec.exempt.nominalConcurrencyShares and lendablePercent.
std::optional<nlohmann::json> ReviseApfObject(const nlohmann::json& live,
                                              const nlohmann::json& bootstrap,
                                              bool mandatory);

// Whether the producer deletes `live`, an object whose name is not in the
// bootstrap configuration: only when its autoupdate annotation says true.
bool IsUnwantedApfObject(const nlohmann::json& live);

// The Dangling condition the config consumer wants on a FlowSchema whose
// priority level `level` does (or does not) exist, stamped `now`.
nlohmann::json DanglingCondition(const std::string& level, bool level_exists,
                                 const std::string& now);

// Whether the schema's Dangling condition differs from `wanted` in status,
// reason or message (what makes the consumer write it).
bool DanglingConditionDiffers(const nlohmann::json& schema,
                              const nlohmann::json& wanted);

// Go's strconv.ParseBool.
std::optional<bool> ParseGoBool(const std::string& s);

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_FLOWCONTROL_APF_BOOTSTRAP_H_
