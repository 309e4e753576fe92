// Which container of a pod a request for its log, exec or attach means:
// the one named, else the default-container annotation's, else the only
// one; otherwise kube-apiserver's 400 listing the choices.
//
// Thread safety: pure functions.
#ifndef KMOCK_SERVER_HANDLERS_POD_CONTAINER_H_
#define KMOCK_SERVER_HANDLERS_POD_CONTAINER_H_

#include <nlohmann/json.hpp>
#include <string>

#include "common/status.h"

namespace kmock::server {

Result<std::string> PickContainer(const nlohmann::json& pod,
                                  const std::string& asked);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_HANDLERS_POD_CONTAINER_H_
