#include "api/kinds/component_status.h"

namespace kmock::api::kinds {

using nlohmann::json;

std::vector<json> ComponentStatuses() {
  std::vector<json> out;
  for (const char* name : {"controller-manager", "scheduler", "etcd-0"}) {
    out.push_back(
        {{"apiVersion", "v1"},
         {"kind", "ComponentStatus"},
         {"metadata", {{"name", name}, {"creationTimestamp", nullptr}}},
         {"conditions", json::array({{{"type", "Healthy"},
                                      {"status", "True"},
                                      {"message", "ok"}}})}});
  }
  return out;
}

}  // namespace kmock::api::kinds
