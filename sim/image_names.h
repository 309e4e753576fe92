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
#ifndef KMOCK_SIM_IMAGE_NAMES_H_
#define KMOCK_SIM_IMAGE_NAMES_H_

#include <cstdint>
#include <string>

namespace kmock::sim {

std::string NormalizeImage(const std::string& image);

struct ImageReference {
  std::string repository;  // "docker.io/library/nginx"
  std::string tag;         // "1.27", empty with a digest only
  std::string digest;      // "sha256:...", or empty
};
// The parts of a normalised name.
ImageReference SplitReference(const std::string& normalized);
// Why an image name as written is not a valid reference, in the words of
// the kubelet ("couldn't parse image name \"Nginx\": invalid reference
// format: repository name (library/Nginx) must be lowercase"); empty when
// it is valid.
std::string InvalidReferenceReason(const std::string& image);
// The repository part of a normalised name (no tag, no digest).
std::string ImageRepository(const std::string& normalized);
// "<repository>@sha256:<64 hex>".
std::string ImageId(const std::string& normalized);
int64_t ImageSizeBytes(const std::string& normalized);
// The pull policy the API server defaults: Always for :latest or no tag,
// IfNotPresent otherwise.
std::string DefaultPullPolicy(const std::string& image);

}  // namespace kmock::sim

#endif  // KMOCK_SIM_IMAGE_NAMES_H_
