// How kube-apiserver's DefaultStorageClass and DefaultIngressClass
// admission pick the cluster's default class: among the class objects
// annotated `<annotation>: "true"`, the newest (the first name between
// equally new ones, so that the choice never depends on list order).
//
// Thread safety: stateless; safe from any thread.
#ifndef KMOCK_REGISTRY_ADMISSION_DEFAULT_CLASS_H_
#define KMOCK_REGISTRY_ADMISSION_DEFAULT_CLASS_H_

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace kmock::registry {

class Registry;

// The name of the default class among `classes` (pure); `annotations` are
// the keys that mark one (any of them).
std::optional<std::string> NewestDefaultClass(
    const std::vector<nlohmann::json>& classes,
    std::initializer_list<const char*> annotations);

// The same over the objects the registry serves as group/v1 `plural`;
// nullopt when none is marked or the resource is not served.
Result<std::optional<std::string>> ServedDefaultClass(
    Registry& registry, const char* group, const char* plural,
    std::initializer_list<const char*> annotations);

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_ADMISSION_DEFAULT_CLASS_H_
