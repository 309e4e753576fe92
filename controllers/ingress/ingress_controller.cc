#include "controllers/ingress/ingress_controller.h"

#include "common/json_view.h"
#include "controllers/controller_write.h"

namespace kmock::controllers {

using nlohmann::json;

namespace {

// The image's tag ("v1.12.1"), for the version label.
std::string ImageTag(const std::string& image) {
  const size_t slash = image.rfind('/');
  const size_t colon = image.rfind(':');
  if (colon == std::string::npos ||
      (slash != std::string::npos && colon < slash)) {
    return "latest";
  }
  return image.substr(colon + 1);
}

std::string DeploymentName(const IngressControllerSpec& spec) {
  return spec.ns + "-controller";
}

// The labels that select the controller's pods.
json SelectorLabels(const IngressControllerSpec& spec) {
  return {{"app.kubernetes.io/component", "controller"},
          {"app.kubernetes.io/instance", spec.ns},
          {"app.kubernetes.io/name", spec.ns}};
}

json Labels(const IngressControllerSpec& spec, bool component) {
  json labels = {{"app.kubernetes.io/instance", spec.ns},
                 {"app.kubernetes.io/name", spec.ns},
                 {"app.kubernetes.io/part-of", spec.ns},
                 {"app.kubernetes.io/version", ImageTag(spec.image)}};
  if (component) labels["app.kubernetes.io/component"] = "controller";
  return labels;
}

json Metadata(const std::string& name, const std::string& ns, json labels) {
  json md = {{"name", name}, {"labels", std::move(labels)}};
  if (!ns.empty()) md["namespace"] = ns;
  return md;
}

json Deployment(const IngressControllerSpec& spec) {
  const std::string name = DeploymentName(spec);
  json env = json::array(
      {{{"name", "POD_NAME"},
        {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.name"}}}}}},
       {{"name", "POD_NAMESPACE"},
        {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.namespace"}}}}}},
       {{"name", "LD_PRELOAD"}, {"value", "/usr/local/lib/libmimalloc.so"}}});
  json container = {
      {"name", "controller"},
      {"image", spec.image},
      {"imagePullPolicy", "IfNotPresent"},
      {"args",
       {"/nginx-ingress-controller",
        "--publish-service=$(POD_NAMESPACE)/" + name,
        "--election-id=" + spec.ns + "-leader",
        "--controller-class=" + spec.controller,
        "--ingress-class=" + spec.class_name,
        "--configmap=$(POD_NAMESPACE)/" + name}},
      {"env", env},
      {"ports",
       {{{"name", "http"}, {"containerPort", 80}, {"protocol", "TCP"}},
        {{"name", "https"}, {"containerPort", 443}, {"protocol", "TCP"}}}},
      {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "90Mi"}}}}}};
  json pod_spec = {{"containers", {container}},
                   {"nodeSelector", {{"kubernetes.io/os", "linux"}}},
                   {"serviceAccountName", spec.ns},
                   {"terminationGracePeriodSeconds", 300}};
  json template_md = {{"labels", Labels(spec, true)}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", Metadata(name, spec.ns, Labels(spec, true))},
          {"spec",
           {{"replicas", 1},
            {"revisionHistoryLimit", 10},
            {"minReadySeconds", 0},
            {"selector", {{"matchLabels", SelectorLabels(spec)}}},
            {"template", {{"metadata", template_md}, {"spec", pod_spec}}}}}};
}

json PublishedService(const IngressControllerSpec& spec) {
  json ports = json::array();
  for (const char* port : {"http", "https"}) {
    const int number = std::string(port) == "http" ? 80 : 443;
    ports.push_back({{"name", port},
                     {"port", number},
                     {"protocol", "TCP"},
                     {"targetPort", port},
                     {"appProtocol", port}});
  }
  return {
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata", Metadata(DeploymentName(spec), spec.ns, Labels(spec, true))},
      {"spec",
       {{"type", "LoadBalancer"},
        {"externalTrafficPolicy", "Local"},
        {"ipFamilyPolicy", "SingleStack"},
        {"ipFamilies", {"IPv4"}},
        {"ports", ports},
        {"selector", SelectorLabels(spec)}}}};
}

// The loop's own identity: the controller's service account.
registry::WriteOptions ControllerIdentity(const IngressControllerSpec& spec) {
  registry::WriteOptions wo;
  wo.typed_in_process = true;
  wo.user.name = "system:serviceaccount:" + spec.ns + ":" + spec.ns;
  wo.user.groups = {"system:serviceaccounts",
                    "system:serviceaccounts:" + spec.ns,
                    "system:authenticated"};
  wo.field_manager = "nginx-ingress-controller";
  return wo;
}

// The install, as the cluster's administrator applies a manifest.
registry::WriteOptions InstallerIdentity() {
  registry::WriteOptions wo;
  wo.user.name = "kubernetes-admin";
  wo.user.groups = {"kubeadm:cluster-admins", "system:authenticated"};
  wo.field_manager = "kubectl-create";
  return wo;
}

const json& StatusAddresses(const json& obj) {
  return ArrayAt(ObjectAt(ObjectAt(obj, "status"), "loadBalancer"), "ingress");
}

}  // namespace

std::vector<json> IngressControllerObjects(const IngressControllerSpec& spec) {
  json ingress_class = {
      {"apiVersion", "networking.k8s.io/v1"},
      {"kind", "IngressClass"},
      {"metadata", Metadata(spec.class_name, "", Labels(spec, true))},
      {"spec", {{"controller", spec.controller}}}};
  if (spec.default_class) {
    ingress_class["metadata"]["annotations"]
                 ["ingressclass.kubernetes.io/is-default-class"] = "true";
  }
  return {{{"apiVersion", "v1"},
           {"kind", "Namespace"},
           {"metadata", Metadata(spec.ns, "", Labels(spec, false))}},
          {{"apiVersion", "v1"},
           {"kind", "ServiceAccount"},
           {"metadata", Metadata(spec.ns, spec.ns, Labels(spec, true))},
           {"automountServiceAccountToken", true}},
          ingress_class,
          PublishedService(spec),
          Deployment(spec)};
}

std::string IngressClassOf(const json& ingress) {
  const json& spec = ObjectAt(ingress, "spec");
  if (auto it = spec.find("ingressClassName");
      it != spec.end() && it->is_string()) {
    return it->get<std::string>();
  }
  return StringAt(ObjectAt(ObjectAt(ingress, "metadata"), "annotations"),
                  "kubernetes.io/ingress.class");
}

json IngressAddresses(const json& service) {
  json out = json::array();
  for (const json& entry : StatusAddresses(service)) {
    json address = json::object();
    for (const char* key : {"ip", "hostname"}) {
      if (auto it = entry.find(key); it != entry.end() && it->is_string()) {
        address[key] = *it;
      }
    }
    if (!address.empty()) out.push_back(std::move(address));
  }
  return out;
}

IngressController::IngressController(registry::Registry* registry,
                                     const Clock* clock,
                                     IngressControllerOptions options)
    : registry_(registry),
      options_(std::move(options)),
      ingresses_res_(
          registry->catalog().Find("networking.k8s.io", "v1", "ingresses")),
      queue_(clock),
      loop_("nginx-ingress-controller", &queue_, 1,
            [this](const std::string& key) { return Sync(key); }) {
  ingresses_ = std::make_unique<Informer>(registry_, ingresses_res_);
  auto queue_ingress = [this](const json& obj) { queue_.Add(KeyOf(obj)); };
  ingresses_->AddHandlers(
      {queue_ingress,
       [queue_ingress](const json&, const json& obj) { queue_ingress(obj); },
       [this](const json& obj) {
         std::lock_guard<std::mutex> l(mu_);
         announced_.erase(KeyOf(obj));
       }});
  services_ = std::make_unique<Informer>(
      registry_, registry->catalog().Find("", "v1", "services"));
  services_->AddHandlers(
      {[this](const json& obj) { OnServiceChange(obj); },
       [this](const json&, const json& obj) { OnServiceChange(obj); },
       [this](const json& obj) { OnServiceChange(obj); }});
  EventSource source;
  source.component = "nginx-ingress-controller";
  events_ = std::make_unique<EventRecorder>(registry_, clock, source,
                                            options_.event_sink);
}

IngressController::~IngressController() { Stop(); }

void IngressController::Start() {
  queue_.Add(kInstallKey);
  loop_.Start({services_.get(), ingresses_.get()});
}

void IngressController::Stop() { loop_.Stop(); }

std::string IngressController::PublishedKey(const IngressControllerSpec& spec) {
  return spec.ns + "/" + DeploymentName(spec);
}

void IngressController::OnServiceChange(const json& service) {
  const std::string key = KeyOf(service);
  for (const IngressControllerSpec& spec : options_.controllers) {
    if (PublishedKey(spec) != key) continue;
    for (const ObjectPtr& ingress : ingresses_->List()) {
      if (IngressClassOf(*ingress) == spec.class_name) {
        queue_.Add(KeyOf(*ingress));
      }
    }
  }
}

const IngressControllerSpec* IngressController::ControllerFor(
    const json& ingress) {
  const std::string cls = IngressClassOf(ingress);
  for (const IngressControllerSpec& spec : options_.controllers) {
    if (spec.class_name == cls) return &spec;
  }
  return nullptr;
}

Status IngressController::Install() {
  const registry::WriteOptions wo = InstallerIdentity();
  for (const IngressControllerSpec& spec : options_.controllers) {
    for (const json& obj : IngressControllerObjects(spec)) {
      const std::string& api_version = StringAt(obj, "apiVersion");
      const size_t slash = api_version.find('/');
      const std::string group =
          slash == std::string::npos ? "" : api_version.substr(0, slash);
      const std::string version = api_version.substr(slash + 1);
      const api::ResourceInfo* res = registry_->catalog().FindByKind(
          group, version, StringAt(obj, "kind"));
      if (res == nullptr) continue;  // not served: nothing to install
      const json& md = obj["metadata"];
      const std::string ns = res->namespaced ? md.value("namespace", "") : "";
      // Reads before it writes: a restart finds everything in place.
      if (registry_->Get(*res, ns, md.value("name", "")).ok()) continue;
      auto created = registry_->Create(*res, ns, obj, wo);
      if (!created.ok() &&
          created.status().code() != StatusCode::kAlreadyExists) {
        return created.status();
      }
    }
  }
  return Status::Ok();
}

Status IngressController::Sync(const std::string& key) {
  if (key == kInstallKey) return Install();
  KMOCK_RETURN_IF_ERROR(WaitForInformers({services_.get(), ingresses_.get()}));
  ObjectPtr ingress = ingresses_->Get(key);
  if (ingress == nullptr) return Status::Ok();
  const IngressControllerSpec* spec = ControllerFor(*ingress);
  if (spec == nullptr) return Status::Ok();
  const json& md = ObjectAt(*ingress, "metadata");
  if (md.contains("deletionTimestamp")) return Status::Ok();
  const int64_t generation = md.value("generation", int64_t{0});
  bool announce = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto [it, added] = announced_.emplace(key, generation);
    announce = added || it->second != generation;
    it->second = generation;
  }
  if (announce) {
    (void)events_->Record(*ingress,
                          {"Normal", "Sync", "Scheduled for sync", "", ""});
  }
  ObjectPtr service = services_->Get(PublishedKey(*spec));
  const json wanted =
      service != nullptr ? IngressAddresses(*service) : json::array();
  if (wanted == StatusAddresses(*ingress)) return Status::Ok();
  std::string ns, name;
  SplitKey(key, &ns, &name);
  const std::string uid = StringAt(md, "uid");
  auto updated = registry_->GuaranteedUpdate(
      *ingresses_res_, ns, name, "status",
      [&](json& obj) -> Status {
        if (StringAt(ObjectAt(obj, "metadata"), "uid") != uid) {
          return Status(StatusCode::kConflict, "the ingress was replaced");
        }
        obj["status"]["loadBalancer"] = json::object();
        if (!wanted.empty()) obj["status"]["loadBalancer"]["ingress"] = wanted;
        return Status::Ok();
      },
      ControllerIdentity(*spec));
  if (!updated.ok()) return IgnoreRoutineWriteErrors(updated.status());
  (void)events_->Record(*updated,
                        {"Normal", "Sync", "Scheduled for sync", "", ""});
  return Status::Ok();
}

}  // namespace kmock::controllers
