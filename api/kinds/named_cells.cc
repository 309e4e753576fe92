// The table of cells computed by kind code, by the names the resource data
// (api/resources/*.yaml) uses. Cells that kube-apiserver's printers compute
// from more than one field live here; a value read from one place is a
// JSONPath column instead.
#include "api/kinds/cells.h"
#include "api/kinds/event.h"
#include "api/kinds/node.h"
#include "api/kinds/pod.h"
#include "api/kinds/service.h"
#include "api/kinds/util.h"
#include "api/kinds/workload_common.h"
#include "api/table_cells.h"

namespace kmock::api {

namespace {

using kinds::Find;
using kinds::Int;

json DeploymentReady(const json& d, TimePoint /*now*/) {
  return std::to_string(Int(d, {"status", "readyReplicas"})) + "/" +
         std::to_string(Int(d, {"spec", "replicas"}, 1));
}

json DesiredReplicas(const json& obj, TimePoint /*now*/) {
  return Int(obj, {"spec", "replicas"}, 1);
}

const json& Template(const json& obj) {
  static const json kNone = json::object();
  const json* t = Find(obj, {"spec", "template"});
  return t ? *t : kNone;
}

json TemplateContainers(const json& obj, TimePoint /*now*/) {
  return kinds::TemplateContainerNames(Template(obj));
}

json TemplateImages(const json& obj, TimePoint /*now*/) {
  return kinds::TemplateContainerImages(Template(obj));
}

}  // namespace

const std::map<std::string, NamedCell, std::less<>>& NamedCells() {
  static const auto* table = [] {
    auto* t = new kinds::CellTable{
        {"podReady", kinds::PodReadyCell},
        {"podStatus", kinds::PodStatusCell},
        {"podRestarts", kinds::PodRestartsCell},
        {"podIP", kinds::PodIpCell},
        {"podReadinessGates", kinds::PodReadinessGatesCell},
        {"nodeStatus", kinds::NodeStatusCell},
        {"nodeRoles", kinds::NodeRolesCell},
        {"nodeInternalIP", kinds::NodeInternalIpCell},
        {"nodeExternalIP", kinds::NodeExternalIpCell},
        {"serviceClusterIP", kinds::ServiceClusterIpCell},
        {"serviceExternalIP", kinds::ServiceExternalIpCell},
        {"servicePorts", kinds::ServicePortsCell},
        {"serviceSelector", kinds::ServiceSelectorCell},
        {"eventLastSeen", kinds::EventLastSeenCell},
        {"eventFirstSeen", kinds::EventFirstSeenCell},
        {"eventCount", kinds::EventCountCell},
        {"eventObject", kinds::EventObjectCell},
        {"eventSource", kinds::EventSourceCell},
        {"eventMessage", kinds::EventMessageCell},
        {"deploymentReady", DeploymentReady},
        {"desiredReplicas", DesiredReplicas},
        {"templateContainers", TemplateContainers},
        {"templateImages", TemplateImages},
    };
    kinds::AddConfigCells(t);
    kinds::AddWorkloadCells(t);
    kinds::AddNetworkCells(t);
    kinds::AddPlatformCells(t);
    return t;
  }();
  return *table;
}

}  // namespace kmock::api
