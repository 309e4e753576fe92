#include "controllers/controller_manager.h"

#include <thread>

#include "common/json_view.h"
#include "controllers/images.h"
#include "controllers/lifecycle/stage.h"
#include "controllers/system_pods.h"

namespace kmock::controllers {

ControllerManager::ControllerManager(registry::Registry* registry,
                                     const Clock* clock, Rng* rng,
                                     ClusterSpec cluster,
                                     ControllerManagerOptions options)
    : registry_(registry),
      clock_(clock),
      rng_(rng),
      cluster_(std::move(cluster)),
      options_(std::move(options)) {
  if (!options_.version.empty() && options_.version[0] != 'v') {
    options_.version = "v" + options_.version;
  }
}

ControllerManager::~ControllerManager() { Stop(); }

Status ControllerManager::Start() {
  if (started_) return Status::Ok();
  KMOCK_RETURN_IF_ERROR(CompleteClusterSpec(&cluster_));
  KMOCK_ASSIGN_OR_RETURN(res_, CoreResources::Lookup(registry_->catalog()));
  KMOCK_ASSIGN_OR_RETURN(
      BootstrapResult boot,
      Bootstrap(registry_, clock_, rng_, res_, cluster_, options_.version));
  system_pods_ = boot.system_pods;

  pods_ = std::make_unique<Informer>(registry_, res_.pods);
  pods_->AddIndex(kPodsByNodeIndex, PodNodeIndex);
  pods_->AddIndex(kByNamespaceIndex, NamespaceIndex);
  pods_->AddIndex(kByControllerIndex, ControllerIndex);
  nodes_ = std::make_unique<Informer>(registry_, res_.nodes);
  if (res_.persistentvolumeclaims != nullptr) {
    claims_ =
        std::make_unique<Informer>(registry_, res_.persistentvolumeclaims);
  }

  std::string sched_host = cluster_.NodeRunning("kube-scheduler");
  if (options_.event_writers > 0) {
    EventSinkOptions eo;
    eo.writers = options_.event_writers;
    event_sink_ = std::make_unique<EventSink>(eo);
  }
  SchedulerOptions so;
  so.host = sched_host;
  so.event_sink = event_sink_.get();
  so.claims = claims_.get();
  scheduler_ = std::make_unique<Scheduler>(registry_, clock_, rng_, res_,
                                           pods_.get(), nodes_.get(), so);

  std::vector<KubeletNodeConfig> configs;
  std::vector<std::string> names;
  for (const auto& n : cluster_.nodes) {
    configs.push_back(KubeletNodeConfig{n.name, n.internal_ip, n.pod_cidr,
                                        SystemImages(options_.version)});
    names.push_back(n.name);
  }
  KubeletOptions ko;
  ko.stages = options_.stages.empty()
                  ? lifecycle::DefaultStages(cluster_.pacing)
                  : options_.stages;
  ko.workers = options_.kubelet_workers;
  ko.event_sink = event_sink_.get();
  ko.bootstrap_pods.insert(system_pods_.begin(), system_pods_.end());
  ko.static_pods.insert(system_pods_.begin(), system_pods_.end());
  ko.bootstrap_stages = lifecycle::DefaultStages(lifecycle::StagePacing{});
  KMOCK_ASSIGN_OR_RETURN(
      kubelets_, Kubelets::Create(registry_, clock_, rng_, res_, pods_.get(),
                                  nodes_.get(), std::move(configs), ko));
  if (options_.heartbeats) {
    heartbeats_ = std::make_unique<NodeHeartbeats>(registry_, clock_, res_,
                                                   names, options_.heartbeat);
  }

  if (res_.replicasets != nullptr && res_.deployments != nullptr) {
    replicasets_ = std::make_unique<Informer>(registry_, res_.replicasets);
    replicasets_->AddIndex(kByNamespaceIndex, NamespaceIndex);
    deployments_ = std::make_unique<Informer>(registry_, res_.deployments);
    ReplicaSetControllerOptions rso;
    rso.event_sink = event_sink_.get();
    replicaset_controller_ = std::make_unique<ReplicaSetController>(
        registry_, clock_, res_, pods_.get(), replicasets_.get(), rso);
    DeploymentControllerOptions dco;
    dco.event_sink = event_sink_.get();
    deployment_controller_ = std::make_unique<DeploymentController>(
        registry_, clock_, res_, pods_.get(), replicasets_.get(),
        deployments_.get(), dco);
  }

  if (options_.endpoints && res_.endpoints != nullptr &&
      res_.endpointslices != nullptr) {
    // Made before the pod and node informers start: it adds its handlers.
    endpoints_controller_ = std::make_unique<EndpointsController>(
        registry_, clock_, res_, pods_.get(), nodes_.get(),
        options_.endpoints_options);
  }

  if (options_.volumes && claims_ && res_.persistentvolumes != nullptr &&
      res_.storageclasses != nullptr) {
    VolumeControllerOptions vco;
    vco.event_sink = event_sink_.get();
    vco.host = cluster_.NodeRunning("kube-controller-manager");
    volume_controller_ = std::make_unique<VolumeController>(
        registry_, clock_, rng_, res_, claims_.get(), nodes_.get(), vco);
  }

  if (options_.resource_quotas && res_.resourcequotas != nullptr) {
    // Made before the pod informer starts: it adds its handlers.
    quota_controller_ = std::make_unique<ResourceQuotaController>(
        registry_, clock_, res_.resourcequotas, pods_.get());
  }

  if (options_.garbage_collector) {
    // Made before the informers start: it adds its handlers to them.
    GarbageCollectorOptions gco = options_.gc;
    for (Informer* inf : {pods_.get(), nodes_.get(), replicasets_.get(),
                          deployments_.get(), claims_.get()}) {
      if (inf != nullptr) gco.shared_informers[inf->resource()] = inf;
    }
    garbage_collector_ =
        std::make_unique<GarbageCollector>(registry_, clock_, rng_, gco);
  }

  nodes_->Start();
  pods_->Start();
  if (claims_) claims_->Start();
  if (replicasets_) replicasets_->Start();
  if (deployments_) deployments_->Start();
  scheduler_->Start();
  kubelets_->Start();
  if (heartbeats_) heartbeats_->Start();
  if (replicaset_controller_) replicaset_controller_->Start();
  if (deployment_controller_) deployment_controller_->Start();
  if (garbage_collector_) garbage_collector_->Start();
  if (endpoints_controller_) endpoints_controller_->Start();
  if (volume_controller_) volume_controller_->Start();
  if (quota_controller_) quota_controller_->Start();
  if (options_.namespace_controller) {
    namespace_controller_ = std::make_unique<NamespaceController>(
        registry_, clock_, rng_, options_.namespaces);
    namespace_controller_->Start();
  }
  if (options_.kubernetes_service) {
    KubernetesServiceOptions kso = options_.kubernetes_service_options;
    if (kso.advertise_address.empty()) {
      const std::string host = cluster_.NodeRunning("kube-apiserver");
      for (const auto& n : cluster_.nodes) {
        if (n.name == host) kso.advertise_address = n.internal_ip;
      }
    }
    kubernetes_service_ = std::make_unique<KubernetesServiceController>(
        registry_, clock_, res_, kso);
    kubernetes_service_->Start();
  }
  if (options_.service_accounts && res_.serviceaccounts != nullptr) {
    publishers_.push_back(std::make_unique<NamespacePublisher>(
        registry_, clock_, res_.namespaces,
        DefaultServiceAccount(res_.serviceaccounts)));
  }
  if (!options_.root_ca_pem.empty() && res_.configmaps != nullptr) {
    publishers_.push_back(std::make_unique<NamespacePublisher>(
        registry_, clock_, res_.namespaces,
        RootCaConfigMap(res_.configmaps, options_.root_ca_pem)));
  }
  for (auto& publisher : publishers_) publisher->Start();
  if (options_.load_balancers) {
    LoadBalancerControllerOptions lbo;
    lbo.region = cluster_.region;
    lbo.host = cluster_.NodeRunning("cloud-controller-manager");
    lbo.event_sink = event_sink_.get();
    load_balancer_controller_ = std::make_unique<LoadBalancerController>(
        registry_, clock_, rng_, res_, lbo);
    load_balancer_controller_->Start();
  }
  if (!options_.ca_key_pem.empty() && !options_.root_ca_pem.empty() &&
      res_.certificatesigningrequests != nullptr) {
    CsrSigningOptions cso;
    cso.ca_cert_pem = options_.root_ca_pem;
    cso.ca_key_pem = options_.ca_key_pem;
    KMOCK_ASSIGN_OR_RETURN(
        csr_signing_controller_,
        CsrSigningController::Create(registry_, clock_, rng_,
                                     res_.certificatesigningrequests, cso));
    csr_signing_controller_->Start();
  }
  started_ = true;
  return Status::Ok();
}

void ControllerManager::Stop() {
  if (csr_signing_controller_) csr_signing_controller_->Stop();
  for (auto& publisher : publishers_) publisher->Stop();
  if (load_balancer_controller_) load_balancer_controller_->Stop();
  if (endpoints_controller_) endpoints_controller_->Stop();
  if (volume_controller_) volume_controller_->Stop();
  if (quota_controller_) quota_controller_->Stop();
  if (kubernetes_service_) kubernetes_service_->Stop();
  if (namespace_controller_) namespace_controller_->Stop();
  if (garbage_collector_) garbage_collector_->Stop();
  if (deployment_controller_) deployment_controller_->Stop();
  if (replicaset_controller_) replicaset_controller_->Stop();
  if (deployments_) deployments_->Stop();
  if (replicasets_) replicasets_->Stop();
  if (heartbeats_) heartbeats_->Stop();
  if (kubelets_) kubelets_->Stop();
  if (scheduler_) scheduler_->Stop();
  if (claims_) claims_->Stop();
  if (pods_) pods_->Stop();
  if (nodes_) nodes_->Stop();
  // Last: what the components recorded before they stopped is written.
  if (event_sink_) event_sink_->Stop();
}

void ControllerManager::FlushEvents() {
  if (event_sink_) event_sink_->Flush();
}

Status ControllerManager::ClusterReady() const {
  if (!started_) return Status(StatusCode::kServiceUnavailable, "not started");
  for (const auto& key : system_pods_) {
    ObjectPtr pod = pods_->Get(key);
    std::string phase = pod ? ObjectAt(*pod, "status").value("phase", "") : "";
    if (phase != "Running") {
      return Status(StatusCode::kServiceUnavailable,
                    "pod " + key + " is not Running yet");
    }
  }
  return Status::Ok();
}

Status ControllerManager::WaitForClusterReady(
    std::chrono::milliseconds timeout) const {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    Status st = ClusterReady();
    if (st.ok() || std::chrono::steady_clock::now() >= deadline) return st;
    // Each poll reads every system pod: poll big clusters less often.
    std::this_thread::sleep_for(
        std::chrono::milliseconds(2 + system_pods_.size() / 250));
  }
}

}  // namespace kmock::controllers
