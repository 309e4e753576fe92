// The catalog of served resources, written as data in the manner of a CRD.
// Names, verbs, short names and categories are what kube-apiserver v1.33
// advertises in discovery; key prefixes follow its etcd layout.
#include <algorithm>
#include <cctype>
#include <set>

#include "api/kinds/access_review.h"
#include "api/kinds/deployment.h"
#include "api/kinds/event.h"
#include "api/kinds/lease.h"
#include "api/kinds/namespace.h"
#include "api/kinds/node.h"
#include "api/kinds/pod.h"
#include "api/kinds/replicaset.h"
#include "api/kinds/service.h"
#include "api/kinds/util.h"
#include "api/resource.h"

namespace kmock::api {

namespace {

const std::vector<std::string> kAllVerbs = {
    "create", "delete", "deletecollection", "get",
    "list",   "patch",  "update",           "watch"};
const std::vector<std::string> kStatusVerbs = {"get", "patch", "update"};

Subresource Sub(std::string name, std::string group, std::string kind,
                std::vector<std::string> verbs) {
  return Subresource{std::move(name), std::move(group), "v1", std::move(kind),
                     std::move(verbs)};
}

ResourceInfo Pods() {
  ResourceInfo r;
  r.group = "";
  r.version = "v1";
  r.kind = "Pod";
  r.list_kind = "PodList";
  r.plural = "pods";
  r.singular = "pod";
  r.short_names = {"po"};
  r.categories = {"all"};
  r.namespaced = true;
  r.verbs = kAllVerbs;
  // Served so far: status, binding, log; attach, exec and portforward are
  // answered but open no stream yet (server/handlers/container_stream.cc).
  // A v1.33 server also advertises ephemeralcontainers, eviction, proxy,
  // resize.
  r.subresources = {
      Sub("attach", "", "PodAttachOptions", {"create", "get"}),
      Sub("binding", "", "Binding", {"create"}),
      Sub("exec", "", "PodExecOptions", {"create", "get"}),
      Sub("log", "", "Pod", {"get"}),
      Sub("portforward", "", "PodPortForwardOptions", {"create", "get"}),
      Sub("status", "", "Pod", kStatusVerbs)};
  r.key_prefix = "/registry/pods/";
  r.schema_type = "io.k8s.api.core.v1.Pod";
  r.columns = kinds::PodColumns();
  r.cells = kinds::PodCells;
  r.selectable_fields = kinds::PodSelectableFields();
  r.strategy = kinds::PodStrategy();
  r.status_strategy = kinds::PodStatusStrategy();
  return r;
}

ResourceInfo Nodes() {
  ResourceInfo r;
  r.version = "v1";
  r.kind = "Node";
  r.list_kind = "NodeList";
  r.plural = "nodes";
  r.singular = "node";
  r.short_names = {"no"};
  r.namespaced = false;
  r.verbs = kAllVerbs;
  r.subresources = {Sub("status", "", "Node", kStatusVerbs)};
  r.key_prefix = "/registry/minions/";
  r.schema_type = "io.k8s.api.core.v1.Node";
  r.columns = kinds::NodeColumns();
  r.cells = kinds::NodeCells;
  r.selectable_fields = kinds::NodeSelectableFields();
  r.strategy = kinds::NodeStrategy();
  r.status_strategy = kinds::NodeStatusStrategy();
  return r;
}

ResourceInfo Namespaces() {
  ResourceInfo r;
  r.version = "v1";
  r.kind = "Namespace";
  r.list_kind = "NamespaceList";
  r.plural = "namespaces";
  r.singular = "namespace";
  r.short_names = {"ns"};
  r.namespaced = false;
  // Namespaces have no deletecollection.
  r.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
  r.subresources = {Sub("finalize", "", "Namespace", {"update"}),
                    Sub("status", "", "Namespace", kStatusVerbs)};
  r.key_prefix = "/registry/namespaces/";
  r.schema_type = "io.k8s.api.core.v1.Namespace";
  r.name_rule = "label";
  r.columns = kinds::NamespaceColumns();
  r.cells = kinds::NamespaceCells;
  r.selectable_fields = kinds::NamespaceSelectableFields();
  r.strategy = kinds::NamespaceStrategy();
  r.status_strategy = kinds::NamespaceStatusStrategy();
  r.finalize_strategy = kinds::NamespaceFinalizeStrategy();
  return r;
}

ResourceInfo Services() {
  ResourceInfo r;
  r.version = "v1";
  r.kind = "Service";
  r.list_kind = "ServiceList";
  r.plural = "services";
  r.singular = "service";
  r.short_names = {"svc"};
  r.categories = {"all"};
  r.namespaced = true;
  r.verbs = kAllVerbs;
  // A v1.33 server also advertises services/proxy, which is not served.
  r.subresources = {Sub("status", "", "Service", kStatusVerbs)};
  r.key_prefix = "/registry/services/specs/";
  r.schema_type = "io.k8s.api.core.v1.Service";
  r.name_rule = "label";
  r.columns = kinds::ServiceColumns();
  r.cells = kinds::ServiceCells;
  r.selectable_fields = kinds::ServiceSelectableFields();
  r.strategy = kinds::ServiceStrategy();
  r.status_strategy = kinds::ServiceStatusStrategy();
  r.make_allocator = [](Rng* rng) -> std::unique_ptr<ResourceAllocator> {
    return std::make_unique<kinds::ServiceAllocator>(rng);
  };
  return r;
}

ResourceInfo CoreEvents() {
  ResourceInfo r;
  r.version = "v1";
  r.kind = "Event";
  r.list_kind = "EventList";
  r.plural = "events";
  r.singular = "event";
  r.short_names = {"ev"};
  r.namespaced = true;
  r.verbs = kAllVerbs;
  r.key_prefix = "/registry/events/";
  r.schema_type = "io.k8s.api.core.v1.Event";
  r.columns = kinds::EventColumns();
  r.cells = kinds::CoreEventCells;
  r.selectable_fields = kinds::CoreEventSelectableFields();
  r.strategy = kinds::CoreEventStrategy();
  return r;
}

ResourceInfo Bindings() {
  ResourceInfo r;
  r.version = "v1";
  r.kind = "Binding";
  r.list_kind = "BindingList";
  r.plural = "bindings";
  r.singular = "binding";
  r.namespaced = true;
  r.verbs = {"create"};
  r.schema_type = "io.k8s.api.core.v1.Binding";
  r.columns = {{"Name", "string", "name", "Name of the binding.", 0},
               {"Created At", "date", "", "When the binding was created.", 0}};
  r.cells = [](const json& obj, TimePoint) -> std::vector<json> {
    return {kinds::Str(obj, {"metadata", "name"}),
            kinds::Str(obj, {"metadata", "creationTimestamp"})};
  };
  static const Strategy kPlain;
  r.strategy = &kPlain;
  return r;
}

ResourceInfo EventsV1() {
  ResourceInfo r;
  r.group = "events.k8s.io";
  r.version = "v1";
  r.kind = "Event";
  r.list_kind = "EventList";
  r.plural = "events";
  r.singular = "event";
  r.short_names = {"ev"};
  r.namespaced = true;
  r.verbs = kAllVerbs;
  r.key_prefix = "/registry/events/";  // shared with core/v1 events
  r.schema_type = "io.k8s.api.events.v1.Event";
  r.columns = kinds::EventColumns();
  r.cells = kinds::EventsV1Cells;
  r.selectable_fields = kinds::EventsV1SelectableFields();
  r.strategy = kinds::EventsV1Strategy();
  r.from_storage = kinds::CoreEventToEventsV1;
  r.to_storage = kinds::EventsV1ToCoreEvent;
  return r;
}

ResourceInfo Leases() {
  ResourceInfo r;
  r.group = "coordination.k8s.io";
  r.version = "v1";
  r.kind = "Lease";
  r.list_kind = "LeaseList";
  r.plural = "leases";
  r.singular = "lease";
  r.namespaced = true;
  r.verbs = kAllVerbs;
  r.key_prefix = "/registry/leases/";
  r.schema_type = "io.k8s.api.coordination.v1.Lease";
  r.columns = kinds::LeaseColumns();
  r.cells = kinds::LeaseCells;
  r.strategy = kinds::LeaseStrategy();
  return r;
}

ResourceInfo Deployments() {
  ResourceInfo r;
  r.group = "apps";
  r.version = "v1";
  r.kind = "Deployment";
  r.list_kind = "DeploymentList";
  r.plural = "deployments";
  r.singular = "deployment";
  r.short_names = {"deploy"};
  r.categories = {"all"};
  r.namespaced = true;
  r.verbs = kAllVerbs;
  r.subresources = {Sub("scale", "autoscaling", "Scale", kStatusVerbs),
                    Sub("status", "apps", "Deployment", kStatusVerbs)};
  r.key_prefix = "/registry/deployments/";
  r.schema_type = "io.k8s.api.apps.v1.Deployment";
  r.columns = kinds::DeploymentColumns();
  r.cells = kinds::DeploymentCells;
  r.strategy = kinds::DeploymentStrategy();
  r.status_strategy = kinds::DeploymentStatusStrategy();
  r.scale = ScaleSubresource{};
  return r;
}

ResourceInfo ReplicaSets() {
  ResourceInfo r;
  r.group = "apps";
  r.version = "v1";
  r.kind = "ReplicaSet";
  r.list_kind = "ReplicaSetList";
  r.plural = "replicasets";
  r.singular = "replicaset";
  r.short_names = {"rs"};
  r.categories = {"all"};
  r.namespaced = true;
  r.verbs = kAllVerbs;
  r.subresources = {Sub("scale", "autoscaling", "Scale", kStatusVerbs),
                    Sub("status", "apps", "ReplicaSet", kStatusVerbs)};
  r.key_prefix = "/registry/replicasets/";
  r.schema_type = "io.k8s.api.apps.v1.ReplicaSet";
  r.columns = kinds::ReplicaSetColumns();
  r.cells = kinds::ReplicaSetCells;
  r.selectable_fields = kinds::ReplicaSetSelectableFields();
  r.strategy = kinds::ReplicaSetStrategy();
  r.status_strategy = kinds::ReplicaSetStatusStrategy();
  r.scale = ScaleSubresource{};
  return r;
}

ResourceInfo AccessReview(std::string group, std::string version,
                          std::string kind, std::string plural,
                          std::string schema_type) {
  ResourceInfo r;
  r.group = std::move(group);
  r.version = std::move(version);
  r.kind = kind;
  r.list_kind = kind + "List";
  r.plural = plural;
  r.singular = kind;
  std::transform(r.singular.begin(), r.singular.end(), r.singular.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  r.namespaced = false;
  r.verbs = {"create"};
  r.schema_type = std::move(schema_type);
  r.columns = kinds::AccessReviewColumns();
  r.cells = kinds::AccessReviewCells;
  r.strategy = kinds::AccessReviewStrategy();
  return r;
}

ResourceInfo SelfSubjectAccessReviews() {
  ResourceInfo r =
      AccessReview("authorization.k8s.io", "v1", "SelfSubjectAccessReview",
                   "selfsubjectaccessreviews",
                   "io.k8s.api.authorization.v1.SelfSubjectAccessReview");
  r.virtual_create = kinds::CreateSelfSubjectAccessReview;
  return r;
}

ResourceInfo SelfSubjectRulesReviews() {
  ResourceInfo r =
      AccessReview("authorization.k8s.io", "v1", "SelfSubjectRulesReview",
                   "selfsubjectrulesreviews",
                   "io.k8s.api.authorization.v1.SelfSubjectRulesReview");
  r.virtual_create = kinds::CreateSelfSubjectRulesReview;
  return r;
}

// Served as v1 and, for kubectl 1.27 (which asks v1beta1 first), v1beta1.
ResourceInfo SelfSubjectReviews(std::string version) {
  ResourceInfo r = AccessReview(
      "authentication.k8s.io", version, "SelfSubjectReview",
      "selfsubjectreviews",
      "io.k8s.api.authentication." + version + ".SelfSubjectReview");
  r.virtual_create = kinds::CreateSelfSubjectReview;
  return r;
}

}  // namespace

const Strategy* ResourceInfo::UpdateStrategyFor(std::string_view sub) const {
  if (sub.empty()) return strategy;
  if (sub == "status") return status_strategy;
  if (sub == "finalize") return finalize_strategy;
  return nullptr;
}

bool ResourceInfo::HasVerb(std::string_view verb) const {
  return std::find(verbs.begin(), verbs.end(), verb) != verbs.end();
}

const Subresource* ResourceInfo::FindSubresource(std::string_view name) const {
  for (const Subresource& s : subresources) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const Catalog& Catalog::Get() {
  static const Catalog* catalog = [] {
    static const ResourceInfo kResources[] = {
        Bindings(),
        CoreEvents(),
        Namespaces(),
        Nodes(),
        Pods(),
        Services(),
        Deployments(),
        ReplicaSets(),
        Leases(),
        EventsV1(),
        SelfSubjectReviews("v1"),
        SelfSubjectReviews("v1beta1"),
        SelfSubjectAccessReviews(),
        SelfSubjectRulesReviews(),
    };
    auto* c = new Catalog();
    for (const ResourceInfo& r : kResources) c->Add(&r);
    return c;
  }();
  return *catalog;
}

const ResourceInfo* Catalog::Find(std::string_view group,
                                  std::string_view version,
                                  std::string_view plural) const {
  for (const ResourceInfo* r : all_) {
    if (r->group == group && r->version == version && r->plural == plural) {
      return r;
    }
  }
  return nullptr;
}

const ResourceInfo* Catalog::FindByKind(std::string_view group,
                                        std::string_view version,
                                        std::string_view kind) const {
  for (const ResourceInfo* r : all_) {
    if (r->group == group && r->version == version && r->kind == kind) {
      return r;
    }
  }
  return nullptr;
}

std::vector<std::pair<std::string, std::string>> Catalog::GroupVersions()
    const {
  std::set<std::pair<std::string, std::string>> seen;
  for (const ResourceInfo* r : all_) seen.insert({r->group, r->version});
  // std::set orders "" before any group name, then groups by name.
  return {seen.begin(), seen.end()};
}

}  // namespace kmock::api
