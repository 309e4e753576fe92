#include "controllers/scheduling/node_info.h"

#include "common/json_view.h"
#include "controllers/scheduling/filters.h"

namespace kmock::controllers::scheduling {

NodeInfo MakeNodeInfo(const json& node) {
  NodeInfo info;
  const json& metadata = ObjectAt(node, "metadata");
  info.name = StringAt(metadata, "name");
  info.allocatable = NodeAllocatable(node);
  info.unschedulable = ObjectAt(node, "spec").value("unschedulable", false);
  info.taints = EffectiveTaints(node);
  for (const auto& t : info.taints) {
    if (t.value("effect", "") == "PreferNoSchedule") {
      info.prefer_no_schedule = true;
    }
  }
  json kept = {{"name", info.name}};
  if (metadata.contains("labels")) kept["labels"] = metadata["labels"];
  info.node = std::make_shared<const json>(json{{"metadata", std::move(kept)}});
  return info;
}

PodInfo MakePodInfo(const json& pod) {
  PodInfo info;
  const json& spec = ObjectAt(pod, "spec");
  info.pod = &pod;
  info.tolerations = &ArrayAt(spec, "tolerations");
  info.request = PodRequests(pod);
  info.scoring_request = PodRequestsForScoring(pod);
  info.preemption_never = spec.value("preemptionPolicy", "") == "Never";
  const json& affinity = ObjectAt(ObjectAt(spec, "affinity"), "nodeAffinity");
  info.selects_nodes =
      !ObjectAt(spec, "nodeSelector").empty() ||
      affinity.contains("requiredDuringSchedulingIgnoredDuringExecution");
  return info;
}

}  // namespace kmock::controllers::scheduling
