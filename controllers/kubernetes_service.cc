#include "controllers/kubernetes_service.h"

#include <cstdio>

#include "api/kinds/service.h"
#include "controllers/controller_write.h"

namespace kmock::controllers {

using nlohmann::json;

namespace {

constexpr char kNamespace[] = "default";
constexpr char kName[] = "kubernetes";
constexpr char kKey[] = "default/kubernetes";

}  // namespace

KubernetesServiceController::KubernetesServiceController(
    registry::Registry* registry, const Clock* clock, const CoreResources& res,
    KubernetesServiceOptions options)
    : registry_(registry),
      clock_(clock),
      res_(res),
      options_(options),
      queue_(clock) {}

KubernetesServiceController::~KubernetesServiceController() { Stop(); }

void KubernetesServiceController::Start() {
  if (started_ || res_.services == nullptr) return;
  started_ = true;
  queue_.Add(kKey);
  workers_ = std::make_unique<WorkerPool>(
      "kubernetes service", &queue_, 1, [this](const std::string&) {
        TimePoint began = clock_->Now();
        Status st = Sync();
        if (!st.ok()) {
          // As kube-apiserver: reported, and tried again next pass.
          std::fprintf(stderr, "unable to sync kubernetes service: %s\n",
                       st.ToString().c_str());
        }
        // Not sliding: the next pass is due `interval` after this one
        // began.
        queue_.AddAfter(kKey, options_.interval - (clock_->Now() - began));
        return Status::Ok();
      });
}

void KubernetesServiceController::Stop() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  if (workers_) workers_->Stop();
}

Status KubernetesServiceController::Sync() {
  if (res_.services == nullptr) return Status::Ok();
  // One read a pass: what the store holds now, not what a cache has seen
  // of it yet (a cache behind a delete would wait out another pass).
  auto existing = registry_->Get(*res_.services, kNamespace, kName);
  if (existing.ok()) return EnsureEndpoints();
  if (existing.status().code() != StatusCode::kNotFound) {
    return existing.status();
  }
  auto r = registry_->Create(
      *res_.services, kNamespace,
      api::kinds::KubernetesService(api::kinds::kKubernetesServiceIp,
                                    options_.target_port),
      ApiServerWrite("kube-apiserver"));
  // Made meanwhile: nothing to do.
  if (!r.ok() && r.status().code() != StatusCode::kAlreadyExists) {
    return r.status();
  }
  return EnsureEndpoints();
}

Status KubernetesServiceController::EnsureEndpoints() {
  if (options_.advertise_address.empty() || res_.endpoints == nullptr ||
      res_.endpointslices == nullptr) {
    return Status::Ok();
  }
  const json port = {
      {"name", "https"}, {"port", options_.target_port}, {"protocol", "TCP"}};
  const json objects[] = {
      {{"apiVersion", "v1"},
       {"kind", "Endpoints"},
       {"metadata",
        {{"name", kName},
         {"labels", {{"endpointslice.kubernetes.io/skip-mirror", "true"}}}}},
       {"subsets",
        {{{"addresses", {{{"ip", options_.advertise_address}}}},
          {"ports", {port}}}}}},
      {{"apiVersion", "discovery.k8s.io/v1"},
       {"kind", "EndpointSlice"},
       {"metadata",
        {{"name", kName}, {"labels", {{"kubernetes.io/service-name", kName}}}}},
       {"addressType", "IPv4"},
       {"endpoints",
        {{{"addresses", {options_.advertise_address}},
          {"conditions", {{"ready", true}}}}}},
       {"ports", {port}}}};
  const api::ResourceInfo* resources[] = {res_.endpoints, res_.endpointslices};
  for (int i = 0; i < 2; ++i) {
    if (registry_->Get(*resources[i], kNamespace, kName).ok()) continue;
    auto r = registry_->Create(*resources[i], kNamespace, objects[i],
                               ApiServerWrite("kube-apiserver"));
    if (!r.ok() && r.status().code() != StatusCode::kAlreadyExists) {
      return r.status();
    }
  }
  return Status::Ok();
}

}  // namespace kmock::controllers
