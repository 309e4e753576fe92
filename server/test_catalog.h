// A small catalog for the server's unit tests: pods (core, namespaced, with
// status/log/binding subresources), namespaces (cluster-scoped),
// deployments (apps/v1, scale speaks autoscaling/v1 Scale) and widgets
// served in two versions of example.com.
//
// Thread safety: built once (function-local static); immutable afterwards.
#ifndef KMOCK_SERVER_TEST_CATALOG_H_
#define KMOCK_SERVER_TEST_CATALOG_H_

#include <memory>
#include <string>
#include <vector>

#include "api/resource.h"

namespace kmock::server::testing {

inline const std::vector<std::string>& AllVerbs() {
  static const std::vector<std::string> kVerbs = {
      "create", "delete", "deletecollection", "get",
      "list",   "patch",  "update",           "watch"};
  return kVerbs;
}

inline api::ResourceInfo MakePods() {
  api::ResourceInfo r;
  r.group = "";
  r.version = "v1";
  r.kind = "Pod";
  r.list_kind = "PodList";
  r.plural = "pods";
  r.singular = "pod";
  r.short_names = {"po"};
  r.categories = {"all"};
  r.namespaced = true;
  r.verbs = AllVerbs();
  r.subresources = {{"binding", "", "", "Binding", {"create"}},
                    {"log", "", "", "Pod", {"get"}},
                    {"status", "", "", "", {"get", "patch", "update"}}};
  r.key_prefix = "/registry/pods/";
  r.columns = {
      {"Name", "string", "name", "The pod's name.", 0, ".metadata.name", ""},
      {"Status", "string", "", "The pod's phase.", 0, ".status.phase", ""},
      {"Node", "string", "", "Where the pod runs.", 1, ".spec.nodeName", ""}};
  r.cells = [](const nlohmann::json& obj, TimePoint) {
    std::vector<nlohmann::json> cells;
    cells.push_back(obj["metadata"].value("name", ""));
    cells.push_back(obj.contains("status") ? obj["status"].value("phase", "")
                                           : "");
    cells.push_back(obj.contains("spec") ? obj["spec"].value("nodeName", "")
                                         : "");
    return cells;
  };
  return r;
}

inline api::ResourceInfo MakeNamespaces() {
  api::ResourceInfo r;
  r.version = "v1";
  r.kind = "Namespace";
  r.list_kind = "NamespaceList";
  r.plural = "namespaces";
  r.singular = "namespace";
  r.short_names = {"ns"};
  r.namespaced = false;
  r.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
  r.subresources = {{"status", "", "", "", {"get", "patch", "update"}}};
  return r;
}

inline api::ResourceInfo MakeDeployments() {
  api::ResourceInfo r;
  r.group = "apps";
  r.version = "v1";
  r.kind = "Deployment";
  r.list_kind = "DeploymentList";
  r.plural = "deployments";
  r.singular = "deployment";
  r.short_names = {"deploy"};
  r.categories = {"all"};
  r.verbs = AllVerbs();
  r.subresources = {
      {"scale", "autoscaling", "v1", "Scale", {"get", "patch", "update"}},
      {"status", "", "", "", {"get", "patch", "update"}}};
  return r;
}

inline api::ResourceInfo MakeWidgets(const std::string& version) {
  api::ResourceInfo r;
  r.group = "example.com";
  r.version = version;
  r.kind = "Widget";
  r.list_kind = "WidgetList";
  r.plural = "widgets";
  r.singular = "widget";
  r.namespaced = false;
  r.verbs = {"get", "list"};
  return r;
}

inline const api::Catalog& TestCatalog() {
  static const api::Catalog* catalog = [] {
    auto* c = new api::Catalog();
    (void)c->Add(std::make_unique<api::ResourceInfo>(MakePods()));
    (void)c->Add(std::make_unique<api::ResourceInfo>(MakeNamespaces()));
    (void)c->Add(std::make_unique<api::ResourceInfo>(MakeDeployments()));
    (void)c->Add(std::make_unique<api::ResourceInfo>(MakeWidgets("v1beta1")));
    (void)c->Add(std::make_unique<api::ResourceInfo>(MakeWidgets("v1")));
    return c;
  }();
  return *catalog;
}

}  // namespace kmock::server::testing

#endif  // KMOCK_SERVER_TEST_CATALOG_H_
