// Shapes what get, list and watch send: the object or List itself, or its
// Table when the client asked for one (with the includeObject parameter).
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_SERVER_HANDLERS_RENDER_H_
#define KMOCK_SERVER_HANDLERS_RENDER_H_

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "server/handlers/context.h"
#include "server/table.h"

namespace kmock::server {

// The Table options for this request (kBadRequest for a bad includeObject).
Result<TableOptions> TableOptionsFor(const RequestContext& ctx);

// `value` as the client wants it: unchanged, or as a Table when ctx.output
// asks for one. `is_list`: value is a List (items become rows).
Result<nlohmann::json> Render(const RequestContext& ctx, nlohmann::json value,
                              bool is_list);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_HANDLERS_RENDER_H_
