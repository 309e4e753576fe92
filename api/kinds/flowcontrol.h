// FlowSchemas and PriorityLevelConfigurations beside what the schema says:
// a FlowSchema list's Table rows in the order the server matches requests
// against the schemas (lowest spec.matchingPrecedence first, then by
// name), as kube-apiserver prints them; and the older versions served
// before 1.32 (v1beta3, and v1beta2 before 1.29) converted from and to the
// one stored form, v1.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_API_KINDS_FLOWCONTROL_H_
#define KMOCK_API_KINDS_FLOWCONTROL_H_

#include <nlohmann/json.hpp>
#include <string_view>

namespace kmock::api::kinds {

// Whether FlowSchema a comes before b in a Table.
bool FlowSchemaPrecedenceLess(const nlohmann::json& a, const nlohmann::json& b);

// A stored (v1) object as `api_version` serves it, and back. The
// PriorityLevel converters also rename a limited level's share, which
// v1beta2 calls assuredConcurrencyShares.
nlohmann::json FlowcontrolFromStorage(const nlohmann::json& stored,
                                      std::string_view api_version);
nlohmann::json FlowcontrolToStorage(const nlohmann::json& served);
nlohmann::json PriorityLevelV1beta2FromStorage(const nlohmann::json& stored);
nlohmann::json PriorityLevelV1beta2ToStorage(const nlohmann::json& served);

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_FLOWCONTROL_H_
