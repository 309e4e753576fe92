// What a kubelet gives a container it starts: the command line (the pod's
// command and args over the image's entrypoint and cmd), the environment
// (the spec's env and envFrom with the values it can resolve: literal,
// fieldRef, configMapKeyRef, secretKeyRef; HOSTNAME, the image's variables
// and the default/kubernetes Service's), the files the kubelet writes into
// it (/etc/hosts, /etc/hostname, /etc/resolv.conf) and its volume mounts:
// configMap, secret, downwardAPI and projected volumes as read-only files
// of their keys, emptyDir as one directory the pod's containers share,
// anything else as an empty directory.
//
// Thread safety: pure functions.
#ifndef KMOCK_CONTROLLERS_LIFECYCLE_CONTAINER_SETUP_H_
#define KMOCK_CONTROLLERS_LIFECYCLE_CONTAINER_SETUP_H_

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "controllers/lifecycle/runtime.h"
#include "sim/container.h"

namespace kmock::controllers::lifecycle {

// The cluster DNS address written to every pod's /etc/resolv.conf.
inline constexpr char kClusterDnsIp[] = "10.96.0.10";

struct ContainerSetup {
  sim::ProcessSpec spec;  // fs left for the Container
  sim::MountList mounts;
  std::vector<std::string> read_only;
};

// Where the kubelet reads what volumes and env refer to: the ConfigMap
// ("configmaps") or Secret ("secrets") of that name in the pod's
// namespace, or nullopt.
using ObjectSource = std::function<std::optional<nlohmann::json>(
    const std::string& plural, const std::string& name)>;

// The spec entry of c in the pod (containers or initContainers), or null.
const nlohmann::json* SpecOf(const nlohmann::json& pod,
                             const ContainerRuntime& c);

// REQUIRES: c is one of the pod's containers, rt the pod's record.
// rt->empty_dirs gains the pod's emptyDir volumes as they are first used.
ContainerSetup SetUpContainer(const nlohmann::json& pod,
                              const ContainerRuntime& c, PodRuntime* rt,
                              const std::string& node, TimePoint now,
                              const ObjectSource& objects);

// The files the kubelet writes into the container: /etc/hosts,
// /etc/hostname, /etc/resolv.conf and the keys of its configMap, secret,
// downwardAPI and projected volumes.
sim::Filesystem::Files ContainerFiles(const nlohmann::json& pod,
                                      const ContainerRuntime& c,
                                      const PodRuntime& rt,
                                      const std::string& node,
                                      const ObjectSource& objects);

// Makes the container's instance and runs its program to `now`; a program
// that cannot start leaves its error in c->start_error. Its files are
// written when it is first looked into.
// A pod with hostPID sees its node's processes: node_processes gives
// them when `ps` asks.
using ProcessTable =
    std::function<std::vector<std::pair<int64_t, std::string>>()>;
void StartContainerProcess(const std::shared_ptr<const nlohmann::json>& pod,
                           ContainerRuntime* c, PodRuntime* rt,
                           const std::string& node, TimePoint now,
                           const ObjectSource& objects,
                           const ProcessTable& node_processes = nullptr);

}  // namespace kmock::controllers::lifecycle

#endif  // KMOCK_CONTROLLERS_LIFECYCLE_CONTAINER_SETUP_H_
