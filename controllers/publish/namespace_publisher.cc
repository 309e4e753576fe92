#include "controllers/publish/namespace_publisher.h"

#include <cstdio>

#include "common/json_view.h"
#include "controllers/controller_write.h"

namespace kmock::controllers {

using nlohmann::json;

namespace {

bool Terminating(const json& ns) {
  const json& meta = ObjectAt(ns, "metadata");
  return meta.contains("deletionTimestamp") &&
         !meta["deletionTimestamp"].is_null();
}

std::string NamespaceOf(const json& obj) {
  return ObjectAt(obj, "metadata").value("namespace", "");
}

constexpr char kRootCaDescription[] =
    "Contains a CA bundle that can be used to verify the kube-apiserver when "
    "using internal endpoints such as the internal service IP or "
    "kubernetes.default.svc. No other usage is guaranteed across "
    "distributions of Kubernetes clusters.";
constexpr char kDescriptionKey[] = "kubernetes.io/description";

}  // namespace

NamespacePublisher::NamespacePublisher(registry::Registry* registry,
                                       const Clock* clock,
                                       const api::ResourceInfo* namespaces,
                                       PublishedObject published)
    : registry_(registry),
      published_(std::move(published)),
      queue_(clock),
      loop_(published_.controller, &queue_, 1,
            [this](const std::string& ns) { return Sync(ns); }) {
  InformerOptions metadata;
  metadata.metadata_only = true;
  namespaces_ = std::make_unique<Informer>(registry_, namespaces, metadata);
  InformerOptions io;
  io.field_selector = "metadata.name=" + published_.name;
  objects_ = std::make_unique<Informer>(registry_, published_.resource, io);
  namespaces_->AddHandlers(
      {[this](const json& ns) {
         queue_.Add(ObjectAt(ns, "metadata").value("name", ""));
       },
       [this](const json&, const json& ns) {
         queue_.Add(ObjectAt(ns, "metadata").value("name", ""));
       },
       nullptr});
  objects_->AddHandlers(
      {nullptr,
       [this](const json&, const json& obj) { queue_.Add(NamespaceOf(obj)); },
       [this](const json& obj) { queue_.Add(NamespaceOf(obj)); }});
}

NamespacePublisher::~NamespacePublisher() { Stop(); }

void NamespacePublisher::Start() {
  loop_.Start({namespaces_.get(), objects_.get()});
}

void NamespacePublisher::Stop() { loop_.Stop(); }

registry::WriteOptions NamespacePublisher::Write() const {
  return ControllerWrite(published_.account);
}

Status NamespacePublisher::Sync(const std::string& ns) {
  KMOCK_RETURN_IF_ERROR(WaitForInformers({namespaces_.get(), objects_.get()}));
  ObjectPtr namespace_object = namespaces_->Get(ns);
  if (namespace_object == nullptr || Terminating(*namespace_object)) {
    return Status::Ok();
  }
  json wanted = published_.make(ns);
  ObjectPtr live = objects_->Get(ns + "/" + published_.name);
  if (live == nullptr) {
    auto created =
        registry_->Create(*published_.resource, ns, std::move(wanted), Write());
    if (created.ok()) return Status::Ok();
    StatusCode code = created.status().code();
    // Made meanwhile, or the namespace began terminating: nothing to do.
    if (code == StatusCode::kAlreadyExists || code == StatusCode::kForbidden ||
        code == StatusCode::kNotFound) {
      return Status::Ok();
    }
    return created.status();
  }
  if (!published_.repair) return Status::Ok();
  std::optional<json> repaired = published_.repair(*live, wanted);
  if (!repaired) return Status::Ok();
  auto updated = registry_->Update(*published_.resource, ns, published_.name,
                                   "", std::move(*repaired), Write());
  // A conflict or a delete meanwhile queues the namespace again.
  if (updated.ok() || updated.status().code() == StatusCode::kConflict ||
      updated.status().code() == StatusCode::kNotFound) {
    return Status::Ok();
  }
  return updated.status();
}

PublishedObject DefaultServiceAccount(
    const api::ResourceInfo* serviceaccounts) {
  PublishedObject p;
  p.resource = serviceaccounts;
  p.name = "default";
  p.controller = "serviceaccount";
  p.account = "service-account-controller";
  p.make = [](const std::string&) {
    return json{{"apiVersion", "v1"},
                {"kind", "ServiceAccount"},
                {"metadata", {{"name", "default"}}}};
  };
  return p;
}

PublishedObject RootCaConfigMap(const api::ResourceInfo* configmaps,
                                const std::string& ca_pem) {
  PublishedObject p;
  p.resource = configmaps;
  p.name = "kube-root-ca.crt";
  p.controller = "root-ca-cert-publisher";
  p.account = "root-ca-cert-publisher";
  p.make = [ca_pem](const std::string&) {
    return json{{"apiVersion", "v1"},
                {"kind", "ConfigMap"},
                {"metadata",
                 {{"name", "kube-root-ca.crt"},
                  {"annotations", {{kDescriptionKey, kRootCaDescription}}}}},
                {"data", {{"ca.crt", ca_pem}}}};
  };
  // As upstream: the CA data and the description are put back; other
  // annotations and labels a user added stay.
  p.repair = [](const json& live, const json& wanted) -> std::optional<json> {
    const json& meta = ObjectAt(live, "metadata");
    const json& annotations = ObjectAt(meta, "annotations");
    bool described = annotations.value(kDescriptionKey, "") ==
                     wanted["metadata"]["annotations"][kDescriptionKey];
    if (ObjectAt(live, "data") == wanted["data"] && described &&
        !live.contains("binaryData")) {
      return std::nullopt;
    }
    json repaired = live;
    repaired["data"] = wanted["data"];
    repaired.erase("binaryData");
    repaired["metadata"]["annotations"][kDescriptionKey] =
        wanted["metadata"]["annotations"][kDescriptionKey];
    return repaired;
  };
  return p;
}

}  // namespace kmock::controllers
