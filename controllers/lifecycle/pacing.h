// How long each step of a pod's life takes on a fake kubelet. Zero (the
// default) makes a step instant; a classroom slows the cluster down with
// `--pace` or the cluster file's `pacing:` block, and CI keeps it instant.
// Every delay gets up to `jitter` (a fraction, 0.2 = +-20%) of random
// spread from the seeded Rng.
//
// Thread safety: a plain value.
#ifndef KMOCK_CONTROLLERS_LIFECYCLE_PACING_H_
#define KMOCK_CONTROLLERS_LIFECYCLE_PACING_H_

#include <chrono>

namespace kmock::controllers::lifecycle {

struct StagePacing {
  std::chrono::milliseconds sandbox{0};  // pod IP, sandbox up
  std::chrono::milliseconds pull{0};     // image download
  std::chrono::milliseconds create{0};   // container created
  std::chrono::milliseconds start{0};    // container process started
  std::chrono::milliseconds init_run{
      0};                               // an init container runs to completion
  std::chrono::milliseconds ready{0};   // containers report ready
  std::chrono::milliseconds kill{0};    // graceful stop after a delete
  std::chrono::milliseconds remove{0};  // kubelet removes the object
  double jitter = 0;
  // The kubelet's periodic sync of each pod (syncFrequency), which writes
  // changed ConfigMaps and Secrets into its volumes. Not paced by Uniform.
  std::chrono::milliseconds sync{60000};

  // A pacing where every step takes `step` (used by --pace).
  static StagePacing Uniform(std::chrono::milliseconds step, double jitter) {
    StagePacing p;
    p.sandbox = p.pull = p.create = p.start = p.init_run = p.ready = p.kill =
        p.remove = step;
    p.jitter = jitter;
    return p;
  }
};

}  // namespace kmock::controllers::lifecycle

#endif  // KMOCK_CONTROLLERS_LIFECYCLE_PACING_H_
