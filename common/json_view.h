// Copy-free reads of nlohmann::json objects. `obj.value("spec",
// json::object())` returns a copy of the whole subtree, which on hot paths
// (controllers reading every cached pod on every sync) costs more than the
// work itself; these return references instead, to the member or to a shared
// empty value when the member is missing or has another JSON type. Where a
// copy is needed, CopyWithoutManagedFields leaves out the third of an object
// nobody but the field manager reads.
//
// Thread safety: pure functions; the shared empty values are immutable.
#ifndef KMOCK_COMMON_JSON_VIEW_H_
#define KMOCK_COMMON_JSON_VIEW_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace kmock {

// obj[key] when obj is an object holding an object there; else {}.
const nlohmann::json& ObjectAt(const nlohmann::json& obj, std::string_view key);
// obj[key] when obj is an object holding an array there; else [].
const nlohmann::json& ArrayAt(const nlohmann::json& obj, std::string_view key);
// obj[key] when obj is an object holding key; else null.
const nlohmann::json& ValueAt(const nlohmann::json& obj, std::string_view key);
// obj[key] when it is a string; else "".
const std::string& StringAt(const nlohmann::json& obj, std::string_view key);

// A copy of an API object without metadata.managedFields, the copy a
// controller works on (kube-controller-manager's informers strip them too):
// they are a third of a typical object and no controller reads them.
nlohmann::json CopyWithoutManagedFields(const nlohmann::json& obj);

}  // namespace kmock

#endif  // KMOCK_COMMON_JSON_VIEW_H_
