// Reading the object a create or update sends: decode by Content-Type,
// require a JSON object, fill in apiVersion and kind when absent, and reject
// an object of another group/version or kind, or one whose namespace or name
// disagrees with the URL (kube-apiserver's messages).
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_SERVER_HANDLERS_BODY_H_
#define KMOCK_SERVER_HANDLERS_BODY_H_

#include <nlohmann/json.hpp>

#include "api/decode_check.h"
#include "common/status.h"
#include "server/handlers/context.h"

namespace kmock::server {

enum class BodyCheck { kCreate, kUpdate };

// findings (may be null) receives the duplicate keys found while parsing,
// for the registry's fieldValidation check.
Result<nlohmann::json> ReadObjectBody(const RequestContext& ctx,
                                      BodyCheck check,
                                      api::BodyFindings* findings = nullptr);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_HANDLERS_BODY_H_
