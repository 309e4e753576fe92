#include "controllers/bootstrap.h"

#include <map>
#include <set>

#include "api/kinds/daemonset.h"
#include "api/kinds/service.h"
#include "common/json_view.h"
#include "controllers/node_object.h"
#include "controllers/system_pods.h"

namespace kmock::controllers {

using nlohmann::json;

namespace {

registry::WriteOptions SystemWrite(const std::string& user) {
  registry::WriteOptions wo;
  wo.user.name = user;
  wo.user.groups = {"system:masters", "system:authenticated"};
  wo.field_manager = user;
  return wo;
}

// Creates obj unless it exists; records what it created.
Status CreateIfMissing(registry::Registry* reg, const api::ResourceInfo& res,
                       const std::string& ns, const json& obj,
                       const registry::WriteOptions& wo, BootstrapResult* out) {
  auto r = reg->Create(res, ns, obj, wo);
  if (r.ok()) {
    out->created.push_back(res.plural + "/" + (ns.empty() ? "" : ns + "/") +
                           obj["metadata"].value("name", ""));
    return Status::Ok();
  }
  if (r.status().code() == StatusCode::kAlreadyExists) return Status::Ok();
  return r.status();
}

// A system DaemonSet as stored (made unless it exists) and the controller
// reference its pods carry; without the resource, `ds` itself, defaulted
// as the store would, and a null reference.
struct SystemDaemonSet {
  json stored;
  json owner;
};

Result<SystemDaemonSet> EnsureSystemDaemonSet(registry::Registry* registry,
                                              const CoreResources& res, json ds,
                                              const registry::WriteOptions& wo,
                                              BootstrapResult* out) {
  if (res.daemonsets == nullptr) {
    // Defaulted as the store would, for the template generation its pods
    // carry.
    api::kinds::DefaultDaemonSet(ds);
    return SystemDaemonSet{std::move(ds), json()};
  }
  const std::string name = StringAt(ObjectAt(ds, "metadata"), "name");
  KMOCK_RETURN_IF_ERROR(
      CreateIfMissing(registry, *res.daemonsets, "kube-system", ds, wo, out));
  KMOCK_ASSIGN_OR_RETURN(json stored,
                         registry->Get(*res.daemonsets, "kube-system", name));
  const json& meta = ObjectAt(stored, "metadata");
  json owner = {{"apiVersion", "apps/v1"},
                {"kind", "DaemonSet"},
                {"name", name},
                {"uid", StringAt(meta, "uid")},
                {"controller", true},
                {"blockOwnerDeletion", true}};
  return SystemDaemonSet{std::move(stored), std::move(owner)};
}

}  // namespace

Result<BootstrapResult> Bootstrap(registry::Registry* registry,
                                  const Clock* clock, Rng* rng,
                                  const CoreResources& res,
                                  const ClusterSpec& cluster,
                                  const std::string& version) {
  BootstrapResult out;
  auto admin = SystemWrite("system:kube-controller-manager");
  for (const char* ns :
       {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    json obj = {{"apiVersion", "v1"},
                {"kind", "Namespace"},
                {"metadata", {{"name", ns}}}};
    KMOCK_RETURN_IF_ERROR(
        CreateIfMissing(registry, *res.namespaces, "", obj, admin, &out));
  }
  // The Service every cluster has for its API server (10.96.0.1:443);
  // kubernetes_service.h makes it again when it is deleted.
  auto apiserver = SystemWrite("system:apiserver");
  apiserver.field_manager = "kube-apiserver";
  KMOCK_RETURN_IF_ERROR(CreateIfMissing(
      registry, *res.services, "default",
      api::kinds::KubernetesService(api::kinds::kKubernetesServiceIp, 6443),
      apiserver, &out));

  // The two system PriorityClasses kube-apiserver makes at start-up.
  if (res.priorityclasses != nullptr) {
    struct SystemClass {
      const char* name;
      int64_t value;
      const char* description;
    } classes[] = {
        {"system-cluster-critical", 2000000000,
         "Used for system critical pods that must run in the cluster, but "
         "can be moved to another node if necessary."},
        {"system-node-critical", 2000001000,
         "Used for system critical pods that must not be moved from their "
         "current node."},
    };
    for (const SystemClass& c : classes) {
      json obj = {{"apiVersion", "scheduling.k8s.io/v1"},
                  {"kind", "PriorityClass"},
                  {"metadata", {{"name", c.name}}},
                  {"value", c.value},
                  {"description", c.description},
                  {"preemptionPolicy", "PreemptLowerPriority"}};
      KMOCK_RETURN_IF_ERROR(CreateIfMissing(registry, *res.priorityclasses, "",
                                            obj, apiserver, &out));
    }
  }

  // The cloud's default StorageClass, as an EKS cluster comes with it:
  // EBS gp2 volumes, made when a pod first uses the claim.
  if (res.storageclasses != nullptr) {
    json gp2 = {{"apiVersion", "storage.k8s.io/v1"},
                {"kind", "StorageClass"},
                {"metadata",
                 {{"name", "gp2"},
                  {"annotations",
                   {{"storageclass.kubernetes.io/is-default-class", "true"}}}}},
                {"provisioner", "kubernetes.io/aws-ebs"},
                {"parameters", {{"fsType", "ext4"}, {"type", "gp2"}}},
                {"reclaimPolicy", "Delete"},
                {"volumeBindingMode", "WaitForFirstConsumer"}};
    KMOCK_RETURN_IF_ERROR(CreateIfMissing(registry, *res.storageclasses, "",
                                          gp2, SystemWrite("kubernetes-admin"),
                                          &out));
  }

  std::map<std::string, std::string> node_uids;
  for (const auto& node : cluster.nodes) {
    auto kubelet = SystemWrite("system:node:" + node.name);
    kubelet.user.groups = {"system:nodes", "system:authenticated"};
    auto existing = registry->Get(*res.nodes, "", node.name);
    if (!existing.ok()) {
      if (existing.status().code() != StatusCode::kNotFound) {
        return existing.status();
      }
      auto created = registry->Create(*res.nodes, "",
                                      BuildNode(cluster, node, rng), kubelet);
      if (!created.ok() &&
          created.status().code() != StatusCode::kAlreadyExists) {
        return created.status();
      }
      out.created.push_back("nodes/" + node.name);
      json status = BuildNodeStatus(node, version, clock->Now(), rng);
      auto updated = registry->GuaranteedUpdate(
          *res.nodes, "", node.name, "status",
          [&](json& obj) -> Status {
            obj["status"] = status;
            return Status::Ok();
          },
          kubelet);
      if (!updated.ok()) return updated.status();
      node_uids[node.name] = (*updated)["metadata"].value("uid", "");
    } else {
      node_uids[node.name] = (*existing)["metadata"].value("uid", "");
    }
  }

  // What kube-system already holds.
  auto list = registry->List(*res.pods, "kube-system", registry::ListOptions{});
  if (!list.ok()) return list.status();
  std::set<std::string> names;
  std::map<std::string, std::string> proxy_on_node;  // node -> pod
  std::string ccm;
  for (const auto& p : (*list)["items"]) {
    std::string name = p["metadata"].value("name", "");
    names.insert(name);
    std::string app = ObjectAt(p["metadata"], "labels").value("k8s-app", "");
    std::string node = ObjectAt(p, "spec").value("nodeName", "");
    if (app == kKubeProxyApp) proxy_on_node[node] = name;
    if (app == kCloudControllerApp) ccm = name;
  }

  // The managers a real cluster's system pods show: the kubelet for
  // mirror pods, the DaemonSet controller's for the others.
  auto daemonsets = admin;
  daemonsets.field_manager = "kube-controller-manager";
  for (const auto& component : ControlPlaneComponents()) {
    std::string host = cluster.NodeRunning(component);
    if (host.empty()) continue;
    const NodeSpec* node = nullptr;
    for (const auto& n : cluster.nodes) {
      if (n.name == host) node = &n;
    }
    if (component == "cloud-controller-manager") {
      // The cloud provider's DaemonSet, with its one pod.
      KMOCK_ASSIGN_OR_RETURN(
          SystemDaemonSet ds,
          EnsureSystemDaemonSet(registry, res,
                                BuildCloudControllerDaemonSet(cluster, version),
                                daemonsets, &out));
      if (ccm.empty()) {
        json pod = BuildSystemDaemonPod(ds.stored, *node, ds.owner, rng);
        ccm = pod["metadata"]["name"];
        KMOCK_RETURN_IF_ERROR(CreateIfMissing(
            registry, *res.pods, "kube-system", pod, daemonsets, &out));
      }
      out.system_pods.push_back("kube-system/" + ccm);
      out.daemon_pods.insert("kube-system/" + ccm);
      continue;
    }
    std::string name = component + "-" + host;
    if (!names.count(name)) {
      json pod = BuildStaticPod(component, *node, node_uids[host], version,
                                clock->Now(), rng);
      auto kubelet = SystemWrite("system:node:" + host);
      kubelet.field_manager = "kubelet";
      KMOCK_RETURN_IF_ERROR(CreateIfMissing(registry, *res.pods, "kube-system",
                                            pod, kubelet, &out));
    }
    out.system_pods.push_back("kube-system/" + name);
  }
  // kube-proxy runs on every node as kubeadm's DaemonSet. Its pods are made
  // here rather than by the DaemonSet controller so that they start with the
  // cluster; the controller finds them up to date.
  KMOCK_ASSIGN_OR_RETURN(
      SystemDaemonSet proxy,
      EnsureSystemDaemonSet(registry, res, BuildKubeProxyDaemonSet(version),
                            daemonsets, &out));
  for (const auto& node : cluster.nodes) {
    std::string name = proxy_on_node[node.name];
    if (name.empty()) {
      json pod = BuildSystemDaemonPod(proxy.stored, node, proxy.owner, rng);
      name = pod["metadata"]["name"];
      KMOCK_RETURN_IF_ERROR(CreateIfMissing(registry, *res.pods, "kube-system",
                                            pod, daemonsets, &out));
    }
    out.system_pods.push_back("kube-system/" + name);
    out.daemon_pods.insert("kube-system/" + name);
  }
  return out;
}

}  // namespace kmock::controllers
