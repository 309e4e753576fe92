// What a kubelet gives a container it starts: the command line (the pod's
// command and args over the image's entrypoint and cmd), the environment
// (the spec's env and envFrom with the values it can resolve: literal,
// fieldRef, configMapKeyRef, secretKeyRef; HOSTNAME, the image's variables
// and the default/kubernetes Service's), the files the kubelet writes into
// it (/etc/hosts, /etc/hostname, /etc/resolv.conf) and its volume mounts:
// configMap, secret, downwardAPI and projected volumes (with the
// service-account token) as read-only directories of their keys, one per
// pod, which the kubelet writes again on its next sync after the source
// changed (RefreshFileVolumes); a subPath mount of one is a copy made once,
// as a real kubelet's is; emptyDir as one directory the pod's containers
// share; hostPath as the node's directory (shared by the node's pods);
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
// The ConfigMap of the cluster CA in every namespace (kube-api-access).
inline constexpr char kRootCaConfigMap[] = "kube-root-ca.crt";

struct ContainerSetup {
  sim::ProcessSpec spec;  // fs left for the Container
  sim::MountList mounts;
  std::vector<std::string> read_only;
};

// Where the kubelet reads what volumes and env refer to: the ConfigMap
// ("configmaps") or Secret ("secrets") of that name in the pod's
// namespace, or null.
using ObjectSource = std::function<std::shared_ptr<const nlohmann::json>(
    const std::string& plural, const std::string& name)>;
// The token of a projected serviceAccountToken source (its audience and
// expirationSeconds) for the pod: a TokenRequest of the pod's service
// account bound to the pod; nullopt when none can be issued.
using TokenSource = std::function<std::optional<std::string>(
    const nlohmann::json& pod, const nlohmann::json& source)>;
// The pod as the kubelet sees it now; null once it is gone.
using PodSource = std::function<std::shared_ptr<const nlohmann::json>()>;

// What the kubelet reads from the API for a pod's containers. Copied into
// the loaders of the files it writes: each must stay valid while the
// pod's containers exist.
struct PodSources {
  ObjectSource objects;
  TokenSource token;
  PodSource pod;
  // The node's own files, which hostPath volumes show; null: a hostPath
  // volume is an empty directory of its own.
  std::shared_ptr<sim::Filesystem> host;
};

// Whether a downwardAPI volume (or projected source) of the pod writes out
// its labels or annotations: a change of them changes the pod's files.
bool ProjectsPodMetadata(const nlohmann::json& pod);

// Why the kubelet cannot make the container's configuration (its waiting
// reason CreateContainerConfigError), in the kubelet's words: a ConfigMap
// or Secret that env or envFrom needs is missing (`configmap "x" not
// found`), or a key of one (`couldn't find key k in ConfigMap ns/x`);
// "" when nothing is missing. Refs marked optional are never missing.
std::string ContainerConfigError(const nlohmann::json& pod,
                                 const ContainerRuntime& c,
                                 const ObjectSource& objects);

// Why the kubelet cannot set up one of the pod's volumes (a FailedMount
// event's message): `MountVolume.SetUp failed for volume "v" : configmap
// "x" not found` for a configMap, secret or projected source that is
// missing and not optional; "" when every volume can be set up.
// Without a root CA publisher (root_ca false) the kube-root-ca.crt
// ConfigMap is never waited for.
std::string VolumeSetUpError(const nlohmann::json& pod,
                             const ObjectSource& objects, bool root_ca = true);

// Whether a volume of the pod projects the ConfigMap ("configmaps") or
// Secret ("secrets") of that name: a change of it changes the pod's files.
bool MountsObject(const nlohmann::json& pod, const std::string& plural,
                  const std::string& name);

// The spec entry of c in the pod (containers or initContainers), or null.
const nlohmann::json* SpecOf(const nlohmann::json& pod,
                             const ContainerRuntime& c);

// REQUIRES: c is one of the pod's containers, rt the pod's record.
// rt->empty_dirs gains the pod's emptyDir volumes as they are first used.
// rt->file_volumes gains the pod's configMap, secret, downwardAPI and
// projected volumes as they are first mounted.
ContainerSetup SetUpContainer(const nlohmann::json& pod,
                              const ContainerRuntime& c, PodRuntime* rt,
                              const std::string& node, TimePoint now,
                              const PodSources& sources);

// The files the kubelet writes into the container's own filesystem:
// /etc/hosts, /etc/hostname, /etc/resolv.conf and the keys of the volumes
// it mounts with a subPath.
sim::Filesystem::Files ContainerFiles(const nlohmann::json& pod,
                                      const ContainerRuntime& c,
                                      const PodRuntime& rt,
                                      const std::string& node,
                                      const PodSources& sources);

// The kubelet writes the pod's file volumes again from the API (a sync
// after a ConfigMap or Secret they project changed). Volumes nobody has
// looked into yet are left to be read when first looked into.
void RefreshFileVolumes(const PodRuntime& rt);

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
                           const PodSources& sources,
                           const ProcessTable& node_processes = nullptr);

}  // namespace kmock::controllers::lifecycle

#endif  // KMOCK_CONTROLLERS_LIFECYCLE_CONTAINER_SETUP_H_
