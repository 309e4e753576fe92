// Keeps one named object in every active namespace, as two of
// kube-controller-manager's controllers do: serviceaccounts-controller
// (ServiceAccount "default") and root-ca-cert-publisher (ConfigMap
// "kube-root-ca.crt"). Level-triggered: a namespace that is added or
// changes, and an object of that name that is deleted or changes, queue the
// namespace; one sync creates the object when it is missing and, when the
// published object says how, brings a live copy that drifted back to what
// it should hold. Terminating namespaces are left alone (the namespace
// controller is emptying them).
//
// Thread safety: Start/Stop from one thread (Stop is idempotent and runs on
// destruction); Sync from any thread.
#ifndef KMOCK_CONTROLLERS_PUBLISH_NAMESPACE_PUBLISHER_H_
#define KMOCK_CONTROLLERS_PUBLISH_NAMESPACE_PUBLISHER_H_

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/clock.h"
#include "controllers/control_loop.h"
#include "controllers/informer.h"
#include "controllers/work_queue.h"
#include "registry/registry.h"

namespace kmock::controllers {

// What is published, and as whom.
struct PublishedObject {
  const api::ResourceInfo* resource = nullptr;
  std::string name;
  // The controller's name, for logs ("serviceaccount", "root-ca-cert").
  std::string controller;
  // The service account of kube-system its writes are made as.
  std::string account;
  // The object for a namespace (apiVersion, kind, metadata.name set).
  std::function<nlohmann::json(const std::string& ns)> make;
  // Optional: the live object updated to hold what `make` gives, or
  // nullopt when it is as it should be. Unset: a live object is left alone.
  std::function<std::optional<nlohmann::json>(const nlohmann::json& live,
                                              const nlohmann::json& wanted)>
      repair;
};

class NamespacePublisher {
 public:
  NamespacePublisher(registry::Registry* registry, const Clock* clock,
                     const api::ResourceInfo* namespaces,
                     PublishedObject published);
  ~NamespacePublisher();
  NamespacePublisher(const NamespacePublisher&) = delete;
  NamespacePublisher& operator=(const NamespacePublisher&) = delete;

  void Start();
  void Stop();

  // Publishes into one namespace. kUnavailable before the informers sync.
  Status Sync(const std::string& ns);

 private:
  registry::WriteOptions Write() const;

  registry::Registry* registry_;
  PublishedObject published_;
  WorkQueue queue_;
  std::unique_ptr<Informer> namespaces_;
  std::unique_ptr<Informer> objects_;
  ControlLoop loop_;
};

// ServiceAccount "default" in every namespace.
PublishedObject DefaultServiceAccount(const api::ResourceInfo* serviceaccounts);
// ConfigMap "kube-root-ca.crt" holding `ca_pem` under "ca.crt".
PublishedObject RootCaConfigMap(const api::ResourceInfo* configmaps,
                                const std::string& ca_pem);

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_PUBLISH_NAMESPACE_PUBLISHER_H_
