// pods/<name>/attach, exec and portforward: a client asks to upgrade the
// connection to a stream of a container (WebSocket first, then SPDY).
//
// The fake containers run no process yet, so there is nothing to stream.
// Every request gets a Status answer instead of the 101 upgrade, as from a
// cluster whose kubelet cannot open the stream: kubectl treats a WebSocket
// refusal as a reason to retry over SPDY, then prints the Status
// ("Error from server (BadRequest): ...") and exits 1. So `kubectl run
// --rm -i`, `kubectl exec` and `kubectl attach` end at once (the first
// removes its pod) instead of waiting for a stream that never comes.
#include "server/errors.h"
#include "server/handlers/context.h"
#include "server/handlers/options.h"
#include "server/response.h"

namespace kmock::server {

void HandleContainerStream(const RequestContext& ctx, httplib::Response& res) {
  Result<nlohmann::json> pod =
      ctx.registry->Get(*ctx.resource, ctx.info->ns, ctx.info->name);
  if (!pod.ok()) return WriteError(res, pod.status());
  const std::string& what = ctx.info->subresource;
  std::string target = "pod \"" + ctx.info->name + "\"";
  std::string container = QueryParam(*ctx.req, "container");
  if (!container.empty())
    target = "container \"" + container + "\" in " + target;
  std::string verb =
      what == "portforward" ? "port forwarding to " : what + " to ";
  WriteError(res, BadRequestError(verb + target +
                                  " is not available: the containers of "
                                  "this cluster run no processes yet"));
}

}  // namespace kmock::server
