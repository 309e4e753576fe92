// The catalog entries the controllers work with, looked up once.
//
// Thread safety: immutable after Lookup; the pointers are into the
// catalog, which lives for the whole program.
#ifndef KMOCK_CONTROLLERS_RESOURCES_LOOKUP_H_
#define KMOCK_CONTROLLERS_RESOURCES_LOOKUP_H_

#include "api/resource.h"
#include "common/status.h"

namespace kmock::controllers {

struct CoreResources {
  const api::ResourceInfo* pods = nullptr;
  const api::ResourceInfo* nodes = nullptr;
  const api::ResourceInfo* namespaces = nullptr;
  const api::ResourceInfo* events = nullptr;
  const api::ResourceInfo* leases = nullptr;
  const api::ResourceInfo* services = nullptr;
  // apps/v1; null while the catalog does not serve them (the workload
  // controllers then do not run).
  const api::ResourceInfo* deployments = nullptr;
  const api::ResourceInfo* replicasets = nullptr;
  // v1; null while not served (their publishers then do not run).
  const api::ResourceInfo* serviceaccounts = nullptr;
  const api::ResourceInfo* configmaps = nullptr;
  const api::ResourceInfo* secrets = nullptr;
  // v1 endpoints and discovery.k8s.io/v1 endpointslices; null while not
  // served (the endpoints controller then does not run).
  const api::ResourceInfo* endpoints = nullptr;
  const api::ResourceInfo* endpointslices = nullptr;
  // scheduling.k8s.io/v1; null while not served (the system classes are
  // then not made).
  const api::ResourceInfo* priorityclasses = nullptr;
  const api::ResourceInfo* certificatesigningrequests = nullptr;
  const api::ResourceInfo* resourcequotas = nullptr;
  // v1 claims and volumes, storage.k8s.io/v1 classes; null while not served
  // (the volume controller then does not run, the default class is not
  // made).
  const api::ResourceInfo* persistentvolumeclaims = nullptr;
  const api::ResourceInfo* persistentvolumes = nullptr;
  const api::ResourceInfo* storageclasses = nullptr;
  // policy/v1 budgets and the workloads whose scale they count; null while
  // not served (the disruption controller then does not run, or counts
  // without that kind).
  const api::ResourceInfo* poddisruptionbudgets = nullptr;
  const api::ResourceInfo* statefulsets = nullptr;
  // apps/v1; null while not served (kube-proxy's pods then have no owner,
  // the DaemonSet controller does not run).
  const api::ResourceInfo* daemonsets = nullptr;
  const api::ResourceInfo* controllerrevisions = nullptr;
  // batch/v1; null while not served (the Job, TTL and CronJob controllers
  // then do not run).
  const api::ResourceInfo* jobs = nullptr;
  const api::ResourceInfo* cronjobs = nullptr;
  const api::ResourceInfo* replicationcontrollers = nullptr;

  // kInternal naming the first required resource the catalog lacks.
  static Result<CoreResources> Lookup(const api::Catalog& catalog);
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_RESOURCES_LOOKUP_H_
