// Container image names as containerd reports them, and the stable facts a
// fake registry would give for each image (digest, size).
//
//   "nginx"                        -> "docker.io/library/nginx:latest"
//   "bitnami/redis:7"              -> "docker.io/bitnami/redis:7"
//   "registry.k8s.io/etcd:3.5.21-0" stays as written
//   image ID: "docker.io/library/nginx@sha256:<64 hex>"
//
// The digest and size derive from the normalised name alone, so the same
// image has the same digest on every node and in every run.
//
// Thread safety: pure functions.
#ifndef KMOCK_CONTROLLERS_IMAGES_H_
#define KMOCK_CONTROLLERS_IMAGES_H_

#include <cstdint>
#include <string>

namespace kmock::controllers {

std::string NormalizeImage(const std::string& image);
// The repository part of a normalised name (no tag, no digest).
std::string ImageRepository(const std::string& normalized);
// "<repository>@sha256:<64 hex>".
std::string ImageId(const std::string& normalized);
int64_t ImageSizeBytes(const std::string& normalized);
// The pull policy the API server defaults: Always for :latest or no tag,
// IfNotPresent otherwise.
std::string DefaultPullPolicy(const std::string& image);

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_IMAGES_H_
