#include "controllers/system_pods.h"

#include <algorithm>

#include "controllers/daemonset/history.h"
#include "controllers/daemonset/node_fit.h"

namespace kmock::controllers {

using nlohmann::json;

namespace {

constexpr int64_t kNodeCritical = 2000001000;
constexpr int64_t kClusterCritical = 2000000000;
constexpr char kEtcdImage[] = "registry.k8s.io/etcd:3.5.21-0";

std::string MinorZero(const std::string& version) {
  // "v1.33.1" -> "v1.33.0"
  auto last = version.rfind('.');
  return last == std::string::npos ? version : version.substr(0, last) + ".0";
}

json Requests(const std::string& cpu, const std::string& memory = "") {
  json r = {{"cpu", cpu}};
  if (!memory.empty()) r["memory"] = memory;
  return {{"requests", r}};
}

json HttpProbe(const std::string& host, int port, const std::string& path,
               int initial_delay, int failure_threshold) {
  return {
      {"httpGet",
       {{"host", host}, {"path", path}, {"port", port}, {"scheme", "HTTPS"}}},
      {"initialDelaySeconds", initial_delay},
      {"periodSeconds", 10},
      {"timeoutSeconds", 15},
      {"successThreshold", 1},
      {"failureThreshold", failure_threshold}};
}

struct Component {
  std::string image;
  std::vector<std::string> command;
  json resources;
  std::string probe_host;
  int probe_port;
  std::string probe_path;
};

Component Describe(const std::string& c, const NodeSpec& node,
                   const std::string& version) {
  const std::string& ip = node.internal_ip;
  if (c == "etcd") {
    return {
        kEtcdImage,
        {"etcd", "--advertise-client-urls=https://" + ip + ":2379",
         "--cert-file=/etc/kubernetes/pki/etcd/server.crt",
         "--client-cert-auth=true", "--data-dir=/var/lib/etcd",
         "--initial-advertise-peer-urls=https://" + ip + ":2380",
         "--initial-cluster=" + node.name + "=https://" + ip + ":2380",
         "--key-file=/etc/kubernetes/pki/etcd/server.key",
         "--listen-client-urls=https://127.0.0.1:2379,https://" + ip + ":2379",
         "--listen-metrics-urls=http://127.0.0.1:2381",
         "--listen-peer-urls=https://" + ip + ":2380", "--name=" + node.name,
         "--snapshot-count=10000",
         "--trusted-ca-file=/etc/kubernetes/pki/etcd/ca.crt"},
        Requests("100m", "100Mi"),
        "127.0.0.1",
        2381,
        "/livez"};
  }
  if (c == "kube-apiserver") {
    return {"registry.k8s.io/kube-apiserver:" + version,
            {"kube-apiserver", "--advertise-address=" + ip,
             "--allow-privileged=true", "--authorization-mode=Node,RBAC",
             "--client-ca-file=/etc/kubernetes/pki/ca.crt",
             "--enable-admission-plugins=NodeRestriction",
             "--etcd-servers=https://127.0.0.1:2379", "--secure-port=6443",
             "--service-cluster-ip-range=10.96.0.0/12",
             "--tls-cert-file=/etc/kubernetes/pki/apiserver.crt",
             "--tls-private-key-file=/etc/kubernetes/pki/apiserver.key"},
            Requests("250m"),
            ip,
            6443,
            "/livez"};
  }
  if (c == "kube-controller-manager") {
    return {
        "registry.k8s.io/kube-controller-manager:" + version,
        {"kube-controller-manager", "--allocate-node-cidrs=true",
         "--authentication-kubeconfig=/etc/kubernetes/controller-manager.conf",
         "--bind-address=127.0.0.1", "--cloud-provider=external",
         "--cluster-cidr=10.244.0.0/16", "--cluster-name=kubernetes",
         "--controllers=*,bootstrapsigner,tokencleaner,-cloud-node-lifecycle",
         "--kubeconfig=/etc/kubernetes/controller-manager.conf",
         "--leader-elect=true", "--use-service-account-credentials=true"},
        Requests("200m"),
        "127.0.0.1",
        10257,
        "/healthz"};
  }
  return {
      "registry.k8s.io/kube-scheduler:" + version,
      {"kube-scheduler",
       "--authentication-kubeconfig=/etc/kubernetes/scheduler.conf",
       "--bind-address=127.0.0.1",
       "--kubeconfig=/etc/kubernetes/scheduler.conf", "--leader-elect=true"},
      Requests("100m"),
      "127.0.0.1",
      10259,
      "/livez"};
}

}  // namespace

json BuildStaticPod(const std::string& component, const NodeSpec& node,
                    const std::string& node_uid, const std::string& version,
                    TimePoint now, Rng* rng) {
  Component d = Describe(component, node, version);
  std::string hash = rng->Hex(32);
  json container = {{"name", component},
                    {"image", d.image},
                    {"imagePullPolicy", "IfNotPresent"},
                    {"command", d.command},
                    {"resources", d.resources},
                    {"livenessProbe", HttpProbe(d.probe_host, d.probe_port,
                                                d.probe_path, 10, 8)},
                    {"startupProbe", HttpProbe(d.probe_host, d.probe_port,
                                               d.probe_path, 10, 24)},
                    {"terminationMessagePath", "/dev/termination-log"},
                    {"terminationMessagePolicy", "File"}};
  json annotations = {{"kubernetes.io/config.hash", hash},
                      {"kubernetes.io/config.mirror", hash},
                      {"kubernetes.io/config.seen", FormatRfc3339Micro(now)},
                      {"kubernetes.io/config.source", "file"}};
  if (component == "etcd") {
    annotations["kubeadm.kubernetes.io/etcd.advertise-client-urls"] =
        "https://" + node.internal_ip + ":2379";
  } else if (component == "kube-apiserver") {
    annotations
        ["kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint"] =
            node.internal_ip + ":6443";
  }
  json metadata = {
      {"name", component + "-" + node.name},
      {"namespace", "kube-system"},
      {"labels", {{"component", component}, {"tier", "control-plane"}}},
      {"annotations", annotations}};
  if (!node_uid.empty()) {
    metadata["ownerReferences"] = json::array({{{"apiVersion", "v1"},
                                                {"kind", "Node"},
                                                {"name", node.name},
                                                {"uid", node_uid},
                                                {"controller", true}}});
  }
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", metadata},
      {"spec",
       {{"containers", json::array({container})},
        {"nodeName", node.name},
        {"hostNetwork", true},
        {"dnsPolicy", "ClusterFirst"},
        {"enableServiceLinks", true},
        {"priorityClassName", "system-node-critical"},
        {"priority", kNodeCritical},
        {"preemptionPolicy", "PreemptLowerPriority"},
        {"restartPolicy", "Always"},
        {"schedulerName", "default-scheduler"},
        {"securityContext", {{"seccompProfile", {{"type", "RuntimeDefault"}}}}},
        {"terminationGracePeriodSeconds", 30},
        {"tolerations",
         json::array({{{"effect", "NoExecute"}, {"operator", "Exists"}}})}}}};
}

namespace {

// The pod spec kube-proxy's DaemonSet stamps out (without the node).
json KubeProxyPodSpec(const std::string& version) {
  json container = {
      {"name", "kube-proxy"},
      {"image", "registry.k8s.io/kube-proxy:" + version},
      {"imagePullPolicy", "IfNotPresent"},
      {"command", json::array({"/usr/local/bin/kube-proxy",
                               "--config=/var/lib/kube-proxy/config.conf",
                               "--hostname-override=$(NODE_NAME)"})},
      {"env",
       json::array(
           {{{"name", "NODE_NAME"},
             {"valueFrom",
              {{"fieldRef",
                {{"apiVersion", "v1"}, {"fieldPath", "spec.nodeName"}}}}}}})},
      {"securityContext", {{"privileged", true}}},
      {"terminationMessagePath", "/dev/termination-log"},
      {"terminationMessagePolicy", "File"}};
  return {{"containers", json::array({container})},
          {"hostNetwork", true},
          {"dnsPolicy", "ClusterFirst"},
          {"nodeSelector", {{"kubernetes.io/os", "linux"}}},
          {"priorityClassName", "system-node-critical"},
          {"restartPolicy", "Always"},
          {"schedulerName", "default-scheduler"},
          {"terminationGracePeriodSeconds", 30},
          {"tolerations", json::array({{{"operator", "Exists"}}})}};
}

// A DaemonSet of kube-system whose pods carry the label k8s-app=<app>.
json SystemDaemonSet(const char* app, json pod_spec) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "DaemonSet"},
          {"metadata",
           {{"name", app},
            {"namespace", "kube-system"},
            {"labels", {{"k8s-app", app}}}}},
          {"spec",
           {{"selector", {{"matchLabels", {{"k8s-app", app}}}}},
            {"template",
             {{"metadata", {{"labels", {{"k8s-app", app}}}}},
              {"spec", std::move(pod_spec)}}},
            {"updateStrategy",
             {{"type", "RollingUpdate"},
              {"rollingUpdate", {{"maxUnavailable", 1}, {"maxSurge", 0}}}}}}}};
}

// The pod spec of the AWS cloud-controller-manager's DaemonSet: it runs on
// the control-plane nodes that do not keep ordinary pods away (it does not
// tolerate the control-plane taint), as manage-2 in the default cluster. A
// cluster file that puts it on a node without that role pins it there by
// hostname, or its DaemonSet would take it away again.
json CloudControllerPodSpec(const ClusterSpec& cluster,
                            const std::string& version) {
  const std::string host = cluster.NodeRunning("cloud-controller-manager");
  json node_selector = {{"node-role.kubernetes.io/control-plane", ""}};
  for (const NodeSpec& n : cluster.nodes) {
    if (n.name == host && std::find(n.roles.begin(), n.roles.end(),
                                    "control-plane") == n.roles.end()) {
      node_selector = {{"kubernetes.io/hostname", host}};
    }
  }
  json container = {
      {"name", "aws-cloud-controller-manager"},
      {"image", "registry.k8s.io/provider-aws/cloud-controller-manager:" +
                    MinorZero(version)},
      {"imagePullPolicy", "IfNotPresent"},
      {"args", json::array({"--v=2", "--cloud-provider=aws",
                            "--cluster-name=" + cluster.name,
                            "--configure-cloud-routes=false"})},
      {"resources", Requests("200m")},
      {"terminationMessagePath", "/dev/termination-log"},
      {"terminationMessagePolicy", "File"}};
  return {
      {"containers", json::array({container})},
      {"hostNetwork", true},
      {"dnsPolicy", "ClusterFirst"},
      {"nodeSelector", std::move(node_selector)},
      {"priorityClassName", "system-cluster-critical"},
      {"restartPolicy", "Always"},
      {"schedulerName", "default-scheduler"},
      {"terminationGracePeriodSeconds", 30},
      {"tolerations",
       json::array({{{"key", "node.cloudprovider.kubernetes.io/uninitialized"},
                     {"value", "true"},
                     {"effect", "NoSchedule"}}})}};
}

}  // namespace

json BuildKubeProxyDaemonSet(const std::string& version) {
  return SystemDaemonSet(kKubeProxyApp, KubeProxyPodSpec(version));
}

json BuildCloudControllerDaemonSet(const ClusterSpec& cluster,
                                   const std::string& version) {
  return SystemDaemonSet(kCloudControllerApp,
                         CloudControllerPodSpec(cluster, version));
}

json BuildSystemDaemonPod(const json& ds, const NodeSpec& node,
                          const json& owner, Rng* rng) {
  const json& meta = ds["metadata"];
  json pod = daemonset::NewDaemonPod(ds, node.name, daemonset::RevisionHash(ds),
                                     owner.is_null() ? json::object() : owner);
  json& md = pod["metadata"];
  if (owner.is_null()) md.erase("ownerReferences");
  md["name"] = md["generateName"].get<std::string>() + rng->NameSuffix(5);
  md.erase("generateName");
  md["namespace"] = meta.value("namespace", "kube-system");
  json& spec = pod["spec"];
  spec["nodeName"] = node.name;
  spec["priority"] =
      spec.value("priorityClassName", "") == "system-node-critical"
          ? kNodeCritical
          : kClusterCritical;
  return pod;
}

std::vector<std::string> SystemImages(const std::string& version) {
  return {kEtcdImage,
          "registry.k8s.io/kube-apiserver:" + version,
          "registry.k8s.io/kube-controller-manager:" + version,
          "registry.k8s.io/kube-scheduler:" + version,
          "registry.k8s.io/kube-proxy:" + version,
          "registry.k8s.io/provider-aws/cloud-controller-manager:" +
              MinorZero(version),
          "registry.k8s.io/pause:3.10"};
}

}  // namespace kmock::controllers
