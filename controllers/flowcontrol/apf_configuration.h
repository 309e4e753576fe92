// kube-apiserver's API Priority and Fairness configuration loops, as one
// controller: the "priority-and-fairness-config-producer" that ensures the
// bootstrap FlowSchemas and PriorityLevelConfigurations (apf_bootstrap.h)
// at start-up and every minute after (creating what is missing, putting the
// mandatory objects and the auto-updated suggested ones back to their
// bootstrap spec, deleting auto-updated objects the configuration no longer
// has), and the config consumer's status writer, which keeps each
// FlowSchema's Dangling condition saying whether its priority level exists
// whenever a FlowSchema or a priority level changes.
//
// Both read what is stored before writing, so a restart over a complete
// configuration writes nothing. Writes are kube-apiserver's loopback
// client's (system:apiserver): creates and updates with the field manager
// api-priority-and-fairness-config-producer-v1, the condition as a forced
// server-side apply of the status with
// api-priority-and-fairness-config-consumer-v1.
//
// Thread safety: Start/Stop from one thread (Stop is idempotent and runs on
// destruction); the Sync functions from one thread at a time (the loop's
// worker, or a test while the loop is not started).
#ifndef KMOCK_CONTROLLERS_FLOWCONTROL_APF_CONFIGURATION_H_
#define KMOCK_CONTROLLERS_FLOWCONTROL_APF_CONFIGURATION_H_

#include <chrono>
#include <memory>
#include <string>

#include "common/clock.h"
#include "controllers/control_loop.h"
#include "controllers/informer.h"
#include "controllers/work_queue.h"
#include "registry/registry.h"

namespace kmock::controllers {

inline constexpr char kApfProducerFieldManager[] =
    "api-priority-and-fairness-config-producer-v1";
inline constexpr char kApfConsumerFieldManager[] =
    "api-priority-and-fairness-config-consumer-v1";

struct ApfConfigurationOptions {
  // How often the bootstrap configuration is ensured again.
  std::chrono::nanoseconds resync = std::chrono::minutes(1);
};

class ApfConfiguration {
 public:
  ApfConfiguration(registry::Registry* registry, const Clock* clock,
                   const api::ResourceInfo* flowschemas,
                   const api::ResourceInfo* prioritylevels,
                   ApfConfigurationOptions options = {});
  ~ApfConfiguration();
  ApfConfiguration(const ApfConfiguration&) = delete;
  ApfConfiguration& operator=(const ApfConfiguration&) = delete;

  void Start();
  void Stop();

  // The producer's pass: suggested schemas and levels, then the mandatory
  // ones, then the removal of unwanted auto-updated objects.
  Status EnsureBootstrap();
  // The consumer's pass: every FlowSchema's Dangling condition.
  Status SyncDanglingConditions();

 private:
  Status Sync(const std::string& key);

  registry::Registry* registry_;
  const Clock* clock_;
  const api::ResourceInfo* flowschemas_;
  const api::ResourceInfo* prioritylevels_;
  ApfConfigurationOptions options_;
  WorkQueue queue_;
  std::unique_ptr<Informer> schema_events_;
  std::unique_ptr<Informer> level_events_;
  ControlLoop loop_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_FLOWCONTROL_APF_CONFIGURATION_H_
