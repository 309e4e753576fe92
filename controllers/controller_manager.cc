#include "controllers/controller_manager.h"

#include <thread>

#include "common/json_view.h"
#include "controllers/lifecycle/stage.h"
#include "controllers/replicaset_controller.h"
#include "controllers/system_pods.h"
#include "registry/api_errors.h"

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
  if (res_.persistentvolumes != nullptr) {
    volumes_ = std::make_unique<Informer>(registry_, res_.persistentvolumes);
  }
  // What the kubelets' volumes project.
  if (res_.configmaps != nullptr)
    configmaps_ = std::make_unique<Informer>(registry_, res_.configmaps);
  if (res_.secrets != nullptr)
    secrets_ = std::make_unique<Informer>(registry_, res_.secrets);

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
                                        SystemImages(options_.version),
                                        n.os_image});
    names.push_back(n.name);
  }
  KubeletOptions ko;
  ko.stages = options_.stages.empty()
                  ? lifecycle::DefaultStages(cluster_.pacing)
                  : options_.stages;
  ko.workers = options_.kubelet_workers;
  ko.event_sink = event_sink_.get();
  ko.bootstrap_pods.insert(system_pods_.begin(), system_pods_.end());
  // The kubelets keep the mirror pods; the DaemonSet controller, while it
  // runs, keeps the DaemonSets' pods.
  const bool daemonsets_kept = options_.daemonsets &&
                               res_.daemonsets != nullptr &&
                               res_.controllerrevisions != nullptr;
  for (const std::string& key : system_pods_) {
    if (!daemonsets_kept || !boot.daemon_pods.count(key)) {
      ko.static_pods.insert(key);
    }
  }
  ko.bootstrap_stages = lifecycle::DefaultStages(lifecycle::StagePacing{});
  ko.configmaps = configmaps_.get();
  ko.secrets = secrets_.get();
  ko.sync_period = cluster_.pacing.sync;
  ko.root_ca_published = !options_.root_ca_pem.empty();
  ko.issue_token = token_issuer_;
  KMOCK_ASSIGN_OR_RETURN(
      kubelets_, Kubelets::Create(registry_, clock_, rng_, res_, pods_.get(),
                                  nodes_.get(), std::move(configs), ko));
  containers_.kubelets.store(kubelets_.get());
  // metrics.k8s.io, served while the metrics API is in the catalog.
  const api::Catalog& cat = registry_->catalog();
  const api::ResourceInfo* pod_metrics =
      cat.Find("metrics.k8s.io", "v1beta1", "pods");
  const api::ResourceInfo* node_metrics =
      cat.Find("metrics.k8s.io", "v1beta1", "nodes");
  if (pod_metrics != nullptr && node_metrics != nullptr) {
    metrics_ = std::make_unique<MetricsSource>(pods_.get(), nodes_.get(),
                                               &containers_, clock_);
    MetricsSource* m = metrics_.get();
    // metrics-server's words for what it has no metrics of.
    registry_->SetLiveItems(pod_metrics,
                            {[m](std::string_view ns) { return m->Pods(ns); },
                             [](std::string_view ns, std::string_view name) {
                               return registry::NotFound(
                                   "metrics.k8s.io", "podmetrics",
                                   std::string(ns) + "/" + std::string(name));
                             }});
    registry_->SetLiveItems(node_metrics,
                            {[m](std::string_view) { return m->Nodes(); },
                             [](std::string_view, std::string_view name) {
                               return registry::NotFound("metrics.k8s.io",
                                                         "nodemetrics",
                                                         std::string(name));
                             }});
  }
  if (options_.heartbeats) {
    heartbeats_ = std::make_unique<NodeHeartbeats>(registry_, clock_, res_,
                                                   names, options_.heartbeat);
  }

  if (res_.replicasets != nullptr && res_.deployments != nullptr) {
    replicasets_ = std::make_unique<Informer>(registry_, res_.replicasets);
    replicasets_->AddIndex(kByNamespaceIndex, NamespaceIndex);
    deployments_ = std::make_unique<Informer>(registry_, res_.deployments);
  }

  // Every controller is made before the shared informers start: they add
  // their handlers to them.
  const ControllerContext ctx{
      registry_,
      clock_,
      rng_,
      res_,
      cluster_,
      options_,
      event_sink_.get(),
      pods_.get(),
      nodes_.get(),
      claims_.get(),
      volumes_.get(),
      replicasets_.get(),
      deployments_.get(),
      [this] {
        return (serving_.load() || !options_.wait_for_serving) &&
               ClusterReady().ok();
      }};
  for (const ControllerEntry& entry : ControllerTable()) {
    Result<std::unique_ptr<Controller>> made = entry.make(ctx);
    if (!made.ok()) {
      return Status(
          made.status().code(),
          std::string(entry.name) + " controller: " + made.status().message());
    }
    if (*made != nullptr) controllers_.push_back(std::move(made).value());
  }

  nodes_->Start();
  pods_->Start();
  if (claims_) claims_->Start();
  if (volumes_) volumes_->Start();
  if (configmaps_) configmaps_->Start();
  if (secrets_) secrets_->Start();
  if (replicasets_) replicasets_->Start();
  if (deployments_) deployments_->Start();
  scheduler_->Start();
  kubelets_->Start();
  if (heartbeats_) heartbeats_->Start();
  for (auto& controller : controllers_) controller->Start();
  started_ = true;
  return Status::Ok();
}

void ControllerManager::Stop() {
  for (auto it = controllers_.rbegin(); it != controllers_.rend(); ++it) {
    (*it)->Stop();
  }
  if (deployments_) deployments_->Stop();
  if (replicasets_) replicasets_->Stop();
  if (heartbeats_) heartbeats_->Stop();
  if (kubelets_) kubelets_->Stop();
  if (scheduler_) scheduler_->Stop();
  if (secrets_) secrets_->Stop();
  if (configmaps_) configmaps_->Stop();
  if (volumes_) volumes_->Stop();
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
  if (came_up_.load()) return Status::Ok();
  for (const auto& key : system_pods_) {
    ObjectPtr pod = pods_->Get(key);
    std::string phase = pod ? ObjectAt(*pod, "status").value("phase", "") : "";
    if (phase != "Running") {
      return Status(StatusCode::kServiceUnavailable,
                    "pod " + key + " is not Running yet");
    }
  }
  came_up_.store(true);
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
