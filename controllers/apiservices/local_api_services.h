// kube-apiserver's APIService autoregistration: every built-in group and
// version the server serves gets its APIService (v1.apps, v1., ...),
// served locally (no spec.service), with kube-apiserver's group and
// version priorities and an Available condition ("Local APIServices are
// always available"), so that `kubectl get apiservices` lists what a real
// cluster lists. Group versions kube-apiserver has no priority for (custom
// resources' groups) get none, as there. Created once at start-up and
// whenever the loop is asked again; an existing APIService is left as it
// is apart from its status.
//
// Thread safety: Start/Stop from one thread; Sync from the loop's worker.
#ifndef KMOCK_CONTROLLERS_APISERVICES_LOCAL_API_SERVICES_H_
#define KMOCK_CONTROLLERS_APISERVICES_LOCAL_API_SERVICES_H_

#include <optional>
#include <string>
#include <utility>

#include "common/clock.h"
#include "controllers/control_loop.h"
#include "registry/registry.h"

namespace kmock::controllers {

struct ApiServicePriority {
  int group = 0;
  int version = 0;
};

// kube-apiserver's priority of a built-in group/version; nullopt for one it
// does not register.
std::optional<ApiServicePriority> BuiltinApiServicePriority(
    const std::string& group, const std::string& version);

// The APIService kube-apiserver registers for group/version (pure).
json LocalApiService(const std::string& group, const std::string& version,
                     ApiServicePriority priority);

class LocalApiServices {
 public:
  LocalApiServices(registry::Registry* registry, const Clock* clock,
                   const api::ResourceInfo* apiservices);
  ~LocalApiServices();
  LocalApiServices(const LocalApiServices&) = delete;
  LocalApiServices& operator=(const LocalApiServices&) = delete;

  void Start();
  void Stop();

  // Registers every served built-in group version that lacks its
  // APIService and marks each Available.
  Status Sync();

 private:
  registry::Registry* registry_;
  const Clock* clock_;
  const api::ResourceInfo* apiservices_;
  WorkQueue queue_;
  ControlLoop loop_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_APISERVICES_LOCAL_API_SERVICES_H_
