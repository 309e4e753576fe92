#include "controllers/cloud/load_balancer_controller.h"

#include "common/json_view.h"
#include "controllers/controller_write.h"

namespace kmock::controllers {

namespace {

using nlohmann::json;

bool IsLoadBalancer(const json& service) {
  return ObjectAt(service, "spec").value("type", "") == "LoadBalancer";
}

const json& Ingress(const json& service) {
  return ArrayAt(ObjectAt(ObjectAt(service, "status"), "loadBalancer"),
                 "ingress");
}

}  // namespace

std::string LoadBalancerHostname(const std::string& service_uid,
                                 const std::string& digits,
                                 const std::string& region) {
  std::string name = "a";
  for (char c : service_uid) {
    if (c != '-' && name.size() < 32) name.push_back(c);
  }
  return name + "-" + digits + "." + region + ".elb.amazonaws.com";
}

LoadBalancerController::LoadBalancerController(
    registry::Registry* registry, const Clock* clock, Rng* rng,
    const CoreResources& res, LoadBalancerControllerOptions options)
    : registry_(registry),
      rng_(rng),
      res_(res),
      options_(std::move(options)),
      queue_(clock),
      loop_("service-controller", &queue_, 1,
            [this](const std::string& key) { return Sync(key); }) {
  services_ = std::make_unique<Informer>(registry_, res_.services);
  auto queue_object = [this](const json& obj) {
    // Only Services that are, or still have the address of, a LoadBalancer.
    if (IsLoadBalancer(obj) || !Ingress(obj).empty()) queue_.Add(KeyOf(obj));
  };
  services_->AddHandlers(
      {queue_object,
       [queue_object](const json&, const json& obj) { queue_object(obj); },
       nullptr});
  EventSource source;
  source.component = "service-controller";
  source.host = options_.host;
  events_ = std::make_unique<EventRecorder>(registry_, clock, source,
                                            options_.event_sink);
}

LoadBalancerController::~LoadBalancerController() { Stop(); }

void LoadBalancerController::Start() { loop_.Start({services_.get()}); }

void LoadBalancerController::Stop() { loop_.Stop(); }

Status LoadBalancerController::Sync(const std::string& key) {
  KMOCK_RETURN_IF_ERROR(WaitForInformers({services_.get()}));
  ObjectPtr service = services_->Get(key);
  if (service == nullptr) return Status::Ok();
  const bool wanted = IsLoadBalancer(*service);
  const bool has = !Ingress(*service).empty();
  if (wanted == has) return Status::Ok();
  std::string ns, name;
  SplitKey(key, &ns, &name);
  const std::string uid = ObjectAt(*service, "metadata").value("uid", "");
  (void)events_->Record(
      *service,
      {"Normal", wanted ? "EnsuringLoadBalancer" : "DeletingLoadBalancer",
       wanted ? "Ensuring load balancer" : "Deleting load balancer", "", ""});
  json ingress = json::array();
  if (wanted) {
    // Ten digits, the first not 0.
    std::string digits(1, char('1' + rng_->Uniform(9)));
    while (digits.size() < 10) digits.push_back(char('0' + rng_->Uniform(10)));
    ingress.push_back(
        {{"hostname", LoadBalancerHostname(uid, digits, options_.region)}});
  }
  const registry::WriteOptions wo =
      ControllerWrite("service-controller", "cloud-controller-manager");
  auto updated = registry_->GuaranteedUpdate(
      *res_.services, ns, name, "status",
      [&](json& obj) -> Status {
        if (ObjectAt(obj, "metadata").value("uid", "") != uid) {
          return Status(StatusCode::kConflict, "the service was replaced");
        }
        obj["status"]["loadBalancer"] = json::object();
        if (!ingress.empty())
          obj["status"]["loadBalancer"]["ingress"] = ingress;
        return Status::Ok();
      },
      wo);
  if (!updated.ok()) {
    StatusCode code = updated.status().code();
    return code == StatusCode::kNotFound || code == StatusCode::kConflict
               ? Status::Ok()
               : updated.status();
  }
  (void)events_->Record(
      *updated,
      {"Normal", wanted ? "EnsuredLoadBalancer" : "DeletedLoadBalancer",
       wanted ? "Ensured load balancer" : "Deleted load balancer", "", ""});
  return Status::Ok();
}

}  // namespace kmock::controllers
