// core/v1 Node: Table columns and cells (as kube-apiserver's node printer),
// field selectors, defaults, validation and strategies.
//
// Thread safety: pure functions and stateless strategies; safe from any
// thread.
#ifndef KMOCK_API_KINDS_NODE_H_
#define KMOCK_API_KINDS_NODE_H_

#include <string>
#include <vector>

#include "api/resource.h"

namespace kmock::api::kinds {

// The computed cells, one per column (named cells "node...").
json NodeStatusCell(const json& node, TimePoint now);
json NodeRolesCell(const json& node, TimePoint now);
json NodeInternalIpCell(const json& node, TimePoint now);
json NodeExternalIpCell(const json& node, TimePoint now);
// Sorted roles from node-role.kubernetes.io/<role> and kubernetes.io/role.
std::vector<std::string> NodeRoles(const json& node);
std::vector<SelectableField> NodeSelectableFields();

const Strategy* NodeStrategy();
const Strategy* NodeStatusStrategy();

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_NODE_H_
