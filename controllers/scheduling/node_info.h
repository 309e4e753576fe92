// What a scheduling decision reads of a node and of a pod, taken out of
// their JSON once: a node's allocatable resources, its effective taints
// (with the not-ready taint the node lifecycle controller would add) and
// whether it is cordoned are parsed once per node revision, not once per
// pod and node as the filters over JSON would; a pod's requests and
// tolerations once per decision, not once per node. Of the node object
// itself only what node affinity reads (metadata.name and labels) is kept:
// a node's status (images, conditions, addresses) is most of its size, and
// a scheduler holding whole copies of 5,000 nodes took 150 MB.
//
// Thread safety: immutable values once built; share them freely.
#ifndef KMOCK_CONTROLLERS_SCHEDULING_NODE_INFO_H_
#define KMOCK_CONTROLLERS_SCHEDULING_NODE_INFO_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controllers/scheduling/resources.h"

namespace kmock::controllers::scheduling {

using nlohmann::json;

struct NodeInfo {
  std::string name;
  // {"metadata": {"name", "labels"}}: what node affinity matches.
  std::shared_ptr<const json> node;
  Resources allocatable;
  bool unschedulable = false;
  std::vector<json> taints;         // effective: spec.taints + not-ready
  bool prefer_no_schedule = false;  // any PreferNoSchedule taint
};

NodeInfo MakeNodeInfo(const json& node);

struct PodInfo {
  const json* pod = nullptr;  // the pod decided for; outlives the PodInfo
  const json* tolerations = nullptr;  // spec.tolerations (an array)
  Resources request;                  // PodRequests
  Resources scoring_request;          // PodRequestsForScoring
  bool preemption_never = false;
  // A nodeSelector or required node affinity to check against each node.
  bool selects_nodes = false;
};

// REQUIRES: pod outlives the result.
PodInfo MakePodInfo(const json& pod);

}  // namespace kmock::controllers::scheduling

#endif  // KMOCK_CONTROLLERS_SCHEDULING_NODE_INFO_H_
