// The resource metrics API (metrics.k8s.io/v1beta1), as metrics-server
// reports it to `kubectl top`: NodeMetrics and PodMetrics computed on each
// read from the pods and nodes the informers hold and the kubelets'
// containers (sim/container.h). Usage comes from the simulation:
//   memory  the image's working set (memoryMiB), what `stress --vm-bytes`
//           holds (up to its limit), plus a small amount per container
//           that stays the same for the container's life;
//   cpu     nothing for a sleeping program, a millicore for an idle
//           server, more while its port is answering requests (a
//           port-forwarded load shows);
//   a node  its pods' usage plus the system's own (kubelet, runtime, OS).
// Only Running pods have metrics, as metrics-server reports them.
//
// Thread safety: the methods may be called from any thread.
#ifndef KMOCK_CONTROLLERS_METRICS_SOURCE_H_
#define KMOCK_CONTROLLERS_METRICS_SOURCE_H_

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "controllers/informer.h"
#include "sim/container.h"

namespace kmock::controllers {

class MetricsSource {
 public:
  MetricsSource(const Informer* pods, const Informer* nodes,
                const sim::ContainerDirectory* containers, const Clock* clock)
      : pods_(pods), nodes_(nodes), containers_(containers), clock_(clock) {}

  // PodMetrics of the Running pods in ns ("" all namespaces).
  std::vector<nlohmann::json> Pods(std::string_view ns) const;
  // NodeMetrics of every node.
  std::vector<nlohmann::json> Nodes() const;

 private:
  struct Usage {
    int64_t nanocores = 0;
    int64_t bytes = 0;
  };
  // The usage of each container of a Running pod (name, usage); empty
  // when the pod has no metrics.
  std::vector<std::pair<std::string, Usage>> PodUsage(const nlohmann::json& pod,
                                                      TimePoint now) const;

  const Informer* pods_;
  const Informer* nodes_;
  const sim::ContainerDirectory* containers_;
  const Clock* clock_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_METRICS_SOURCE_H_
