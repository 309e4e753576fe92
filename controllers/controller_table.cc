#include "controllers/controller_table.h"

#include "controllers/apiservices/local_api_services.h"
#include "controllers/certificates/csr_signing_controller.h"
#include "controllers/cloud/load_balancer_controller.h"
#include "controllers/controller_manager.h"
#include "controllers/daemonset/daemonset_controller.h"
#include "controllers/deployment_controller.h"
#include "controllers/disruption/disruption_controller.h"
#include "controllers/endpoints/endpoints_controller.h"
#include "controllers/flowcontrol/apf_configuration.h"
#include "controllers/garbage_collector.h"
#include "controllers/ingress/ingress_controller.h"
#include "controllers/job/job_controller.h"
#include "controllers/job/ttl_after_finished_controller.h"
#include "controllers/kubernetes_service.h"
#include "controllers/namespace_controller.h"
#include "controllers/publish/namespace_publisher.h"
#include "controllers/quota/resource_quota_controller.h"
#include "controllers/replicaset_controller.h"
#include "controllers/storage/pv_protection_controller.h"
#include "controllers/storage/pvc_protection_controller.h"
#include "controllers/storage/volume_controller.h"

namespace kmock::controllers {

namespace {

using Made = Result<std::unique_ptr<Controller>>;

Made Off() { return std::unique_ptr<Controller>(); }

Made MakeReplicaSets(const ControllerContext& ctx) {
  if (ctx.replicasets == nullptr) return Off();
  ReplicaSetControllerOptions o;
  o.event_sink = ctx.event_sink;
  return Own(std::make_unique<ReplicaSetController>(
      ctx.registry, ctx.clock, ctx.res, ctx.pods, ctx.replicasets, o));
}

// The ReplicaSet machinery over ReplicationControllers, with their own
// informer (started before, stopped after the controller).
class ReplicationControllers {
 public:
  explicit ReplicationControllers(const ControllerContext& ctx)
      : informer_(std::make_unique<Informer>(ctx.registry,
                                             ctx.res.replicationcontrollers)) {
    informer_->AddIndex(kByNamespaceIndex, NamespaceIndex);
    ReplicaSetControllerOptions o;
    o.event_sink = ctx.event_sink;
    o.replication_controllers = true;
    controller_ = std::make_unique<ReplicaSetController>(
        ctx.registry, ctx.clock, ctx.res, ctx.pods, informer_.get(), o);
  }
  void Start() {
    informer_->Start();
    controller_->Start();
  }
  void Stop() {
    controller_->Stop();
    informer_->Stop();
  }

 private:
  std::unique_ptr<Informer> informer_;
  std::unique_ptr<ReplicaSetController> controller_;
};

Made MakeReplicationControllers(const ControllerContext& ctx) {
  if (ctx.replicasets == nullptr || ctx.res.replicationcontrollers == nullptr) {
    return Off();
  }
  return Own(std::make_unique<ReplicationControllers>(ctx));
}

Made MakeDeployments(const ControllerContext& ctx) {
  if (ctx.replicasets == nullptr || ctx.deployments == nullptr) return Off();
  DeploymentControllerOptions o;
  o.event_sink = ctx.event_sink;
  return Own(std::make_unique<DeploymentController>(
      ctx.registry, ctx.clock, ctx.res, ctx.pods, ctx.replicasets,
      ctx.deployments, o));
}

Made MakeDaemonSets(const ControllerContext& ctx) {
  if (!ctx.options.daemonsets || ctx.res.daemonsets == nullptr ||
      ctx.res.controllerrevisions == nullptr) {
    return Off();
  }
  DaemonSetControllerOptions o;
  o.event_sink = ctx.event_sink;
  return Own(std::make_unique<DaemonSetController>(
      ctx.registry, ctx.clock, ctx.res, ctx.pods, ctx.nodes, o));
}

Made MakeJobs(const ControllerContext& ctx) {
  if (!ctx.options.jobs || ctx.res.jobs == nullptr) return Off();
  JobControllerOptions o;
  o.event_sink = ctx.event_sink;
  return Own(std::make_unique<JobController>(ctx.registry, ctx.clock, ctx.res,
                                             ctx.pods, o));
}

Made MakeTtlAfterFinished(const ControllerContext& ctx) {
  if (!ctx.options.jobs || ctx.res.jobs == nullptr) return Off();
  return Own(std::make_unique<TtlAfterFinishedController>(ctx.registry,
                                                          ctx.clock, ctx.res));
}

Made MakeGarbageCollector(const ControllerContext& ctx) {
  if (!ctx.options.garbage_collector) return Off();
  GarbageCollectorOptions o = ctx.options.gc;
  for (Informer* inf : {ctx.pods, ctx.nodes, ctx.replicasets, ctx.deployments,
                        ctx.claims, ctx.volumes}) {
    if (inf != nullptr) o.shared_informers[inf->resource()] = inf;
  }
  o.may_start_informers = ctx.cluster_ready;
  return Own(
      std::make_unique<GarbageCollector>(ctx.registry, ctx.clock, ctx.rng, o));
}

Made MakeEndpoints(const ControllerContext& ctx) {
  if (!ctx.options.endpoints || ctx.res.endpoints == nullptr ||
      ctx.res.endpointslices == nullptr) {
    return Off();
  }
  return Own(std::make_unique<EndpointsController>(
      ctx.registry, ctx.clock, ctx.res, ctx.pods, ctx.nodes,
      ctx.options.endpoints_options));
}

Made MakeVolumes(const ControllerContext& ctx) {
  if (!ctx.options.volumes || ctx.claims == nullptr || ctx.volumes == nullptr ||
      ctx.res.storageclasses == nullptr) {
    return Off();
  }
  VolumeControllerOptions o;
  o.event_sink = ctx.event_sink;
  o.host = ctx.cluster.NodeRunning("kube-controller-manager");
  return Own(std::make_unique<VolumeController>(ctx.registry, ctx.clock,
                                                ctx.rng, ctx.res, ctx.claims,
                                                ctx.volumes, ctx.nodes, o));
}

Made MakePvcProtection(const ControllerContext& ctx) {
  if (!ctx.options.volumes || ctx.claims == nullptr) return Off();
  return Own(std::make_unique<PvcProtectionController>(
      ctx.registry, ctx.clock, ctx.res, ctx.pods, ctx.claims));
}

Made MakePvProtection(const ControllerContext& ctx) {
  if (!ctx.options.volumes || ctx.volumes == nullptr) return Off();
  return Own(std::make_unique<PvProtectionController>(ctx.registry, ctx.clock,
                                                      ctx.volumes));
}

Made MakeResourceQuotas(const ControllerContext& ctx) {
  if (!ctx.options.resource_quotas || ctx.res.resourcequotas == nullptr) {
    return Off();
  }
  return Own(std::make_unique<ResourceQuotaController>(
      ctx.registry, ctx.clock, ctx.res.resourcequotas, ctx.pods));
}

Made MakeDisruption(const ControllerContext& ctx) {
  if (!ctx.options.disruption || ctx.res.poddisruptionbudgets == nullptr) {
    return Off();
  }
  DisruptionControllerOptions o;
  o.event_sink = ctx.event_sink;
  return Own(std::make_unique<DisruptionController>(ctx.registry, ctx.clock,
                                                    ctx.res, ctx.pods, o));
}

Made MakeNamespaces(const ControllerContext& ctx) {
  if (!ctx.options.namespace_controller) return Off();
  return Own(std::make_unique<NamespaceController>(
      ctx.registry, ctx.clock, ctx.rng, ctx.options.namespaces));
}

Made MakeKubernetesService(const ControllerContext& ctx) {
  if (!ctx.options.kubernetes_service) return Off();
  KubernetesServiceOptions o = ctx.options.kubernetes_service_options;
  if (o.advertise_address.empty()) {
    const std::string host = ctx.cluster.NodeRunning("kube-apiserver");
    for (const auto& n : ctx.cluster.nodes) {
      if (n.name == host) o.advertise_address = n.internal_ip;
    }
  }
  return Own(std::make_unique<KubernetesServiceController>(
      ctx.registry, ctx.clock, ctx.res, o));
}

Made MakeServiceAccounts(const ControllerContext& ctx) {
  if (!ctx.options.service_accounts || ctx.res.serviceaccounts == nullptr) {
    return Off();
  }
  return Own(std::make_unique<NamespacePublisher>(
      ctx.registry, ctx.clock, ctx.res.namespaces,
      DefaultServiceAccount(ctx.res.serviceaccounts)));
}

Made MakeRootCaPublisher(const ControllerContext& ctx) {
  if (ctx.options.root_ca_pem.empty() || ctx.res.configmaps == nullptr) {
    return Off();
  }
  return Own(std::make_unique<NamespacePublisher>(
      ctx.registry, ctx.clock, ctx.res.namespaces,
      RootCaConfigMap(ctx.res.configmaps, ctx.options.root_ca_pem)));
}

Made MakeLoadBalancers(const ControllerContext& ctx) {
  if (!ctx.options.load_balancers) return Off();
  LoadBalancerControllerOptions o;
  o.region = ctx.cluster.region;
  o.host = ctx.cluster.NodeRunning("cloud-controller-manager");
  o.event_sink = ctx.event_sink;
  return Own(std::make_unique<LoadBalancerController>(ctx.registry, ctx.clock,
                                                      ctx.rng, ctx.res, o));
}

Made MakeCsrSigning(const ControllerContext& ctx) {
  if (ctx.options.ca_key_pem.empty() || ctx.options.root_ca_pem.empty() ||
      ctx.res.certificatesigningrequests == nullptr) {
    return Off();
  }
  CsrSigningOptions o;
  o.ca_cert_pem = ctx.options.root_ca_pem;
  o.ca_key_pem = ctx.options.ca_key_pem;
  KMOCK_ASSIGN_OR_RETURN(
      std::unique_ptr<CsrSigningController> signer,
      CsrSigningController::Create(ctx.registry, ctx.clock, ctx.rng,
                                   ctx.res.certificatesigningrequests, o));
  return Own(std::move(signer));
}

Made MakeLocalApiServices(const ControllerContext& ctx) {
  const api::ResourceInfo* apiservices = ctx.registry->catalog().Find(
      "apiregistration.k8s.io", "v1", "apiservices");
  if (!ctx.options.local_api_services || apiservices == nullptr) return Off();
  return Own(
      std::make_unique<LocalApiServices>(ctx.registry, ctx.clock, apiservices));
}

Made MakeApfConfiguration(const ControllerContext& ctx) {
  // The newest version served: v1 from 1.29, v1beta3 before (one stored
  // form backs every served version).
  const api::Catalog& catalog = ctx.registry->catalog();
  const api::ResourceInfo* flowschemas = nullptr;
  const api::ResourceInfo* levels = nullptr;
  for (const char* version : {"v1", "v1beta3"}) {
    if (flowschemas != nullptr) break;
    flowschemas =
        catalog.Find("flowcontrol.apiserver.k8s.io", version, "flowschemas");
    levels = catalog.Find("flowcontrol.apiserver.k8s.io", version,
                          "prioritylevelconfigurations");
  }
  if (!ctx.options.apf_configuration || flowschemas == nullptr ||
      levels == nullptr) {
    return Off();
  }
  return Own(std::make_unique<ApfConfiguration>(ctx.registry, ctx.clock,
                                                flowschemas, levels));
}

}  // namespace

Made MakeIngressControllers(const ControllerContext& ctx) {
  if (ctx.cluster.ingress_controllers.empty() ||
      ctx.registry->catalog().Find("networking.k8s.io", "v1", "ingresses") ==
          nullptr) {
    return Off();
  }
  IngressControllerOptions o;
  o.controllers = ctx.cluster.ingress_controllers;
  o.event_sink = ctx.event_sink;
  return Own(std::make_unique<IngressController>(ctx.registry, ctx.clock, o));
}

const std::vector<ControllerEntry>& ControllerTable() {
  static const std::vector<ControllerEntry> table = {
      {"replicaset", MakeReplicaSets},
      {"replicationcontroller", MakeReplicationControllers},
      {"deployment", MakeDeployments},
      {"daemonset", MakeDaemonSets},
      {"job", MakeJobs},
      {"ttl-after-finished", MakeTtlAfterFinished},
      {"garbage-collector", MakeGarbageCollector},
      {"endpoint", MakeEndpoints},
      {"persistentvolume-binder", MakeVolumes},
      {"pvc-protection", MakePvcProtection},
      {"pv-protection", MakePvProtection},
      {"resourcequota", MakeResourceQuotas},
      {"disruption", MakeDisruption},
      {"namespace", MakeNamespaces},
      {"kubernetes-service", MakeKubernetesService},
      {"serviceaccount", MakeServiceAccounts},
      {"root-ca-cert-publisher", MakeRootCaPublisher},
      {"service-lb", MakeLoadBalancers},
      {"csrsigning", MakeCsrSigning},
      {"apiservice-autoregister", MakeLocalApiServices},
      {"priority-and-fairness-config", MakeApfConfiguration},
      {"ingress-nginx", MakeIngressControllers},
  };
  return table;
}

}  // namespace kmock::controllers
