#include "controllers/resources_lookup.h"

namespace kmock::controllers {

Result<CoreResources> CoreResources::Lookup(const api::Catalog& cat) {
  CoreResources r;
  struct Want {
    const api::ResourceInfo** slot;
    const char* group;
    const char* plural;
  } wants[] = {
      {&r.pods, "", "pods"},
      {&r.nodes, "", "nodes"},
      {&r.namespaces, "", "namespaces"},
      {&r.events, "", "events"},
      {&r.leases, "coordination.k8s.io", "leases"},
      {&r.services, "", "services"},
  };
  for (const auto& w : wants) {
    *w.slot = cat.Find(w.group, "v1", w.plural);
    if (*w.slot == nullptr) {
      return InternalError(
          std::string("controllers need resource ") + w.plural +
          (w.group[0] ? std::string(".") + w.group : "") + " in the catalog");
    }
  }
  r.deployments = cat.Find("apps", "v1", "deployments");
  r.replicasets = cat.Find("apps", "v1", "replicasets");
  r.serviceaccounts = cat.Find("", "v1", "serviceaccounts");
  r.configmaps = cat.Find("", "v1", "configmaps");
  r.secrets = cat.Find("", "v1", "secrets");
  r.endpoints = cat.Find("", "v1", "endpoints");
  r.endpointslices = cat.Find("discovery.k8s.io", "v1", "endpointslices");
  r.priorityclasses = cat.Find("scheduling.k8s.io", "v1", "priorityclasses");
  r.persistentvolumeclaims = cat.Find("", "v1", "persistentvolumeclaims");
  r.persistentvolumes = cat.Find("", "v1", "persistentvolumes");
  r.storageclasses = cat.Find("storage.k8s.io", "v1", "storageclasses");
  r.resourcequotas = cat.Find("", "v1", "resourcequotas");
  r.poddisruptionbudgets = cat.Find("policy", "v1", "poddisruptionbudgets");
  r.statefulsets = cat.Find("apps", "v1", "statefulsets");
  r.daemonsets = cat.Find("apps", "v1", "daemonsets");
  r.controllerrevisions = cat.Find("apps", "v1", "controllerrevisions");
  r.jobs = cat.Find("batch", "v1", "jobs");
  r.cronjobs = cat.Find("batch", "v1", "cronjobs");
  r.replicationcontrollers = cat.Find("", "v1", "replicationcontrollers");
  r.certificatesigningrequests =
      cat.Find("certificates.k8s.io", "v1", "certificatesigningrequests");
  return r;
}

}  // namespace kmock::controllers
