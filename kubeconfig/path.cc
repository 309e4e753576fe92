// Where kubectl reads and writes its configuration by default.
#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sstream>
#include <vector>

#include "kubeconfig/kubeconfig.h"

namespace kmock::kubeconfig {

namespace {

std::string HomeDir() {
  const char* home = getenv("HOME");
  if (home != nullptr && *home != '\0') return home;
  const passwd* pw = getpwuid(getuid());
  return pw != nullptr && pw->pw_dir != nullptr ? pw->pw_dir : "";
}

}  // namespace

std::string DefaultKubeconfigPathFrom(const std::string& kubeconfig_env,
                                      const std::string& home) {
  std::vector<std::string> files;
  std::stringstream ss(kubeconfig_env);
  std::string item;
  while (std::getline(ss, item, ':')) {
    if (!item.empty()) files.push_back(item);
  }
  for (const auto& f : files) {
    struct stat st;
    if (stat(f.c_str(), &st) == 0) return f;
  }
  if (!files.empty()) return files.front();
  return home + "/.kube/config";
}

std::string DefaultKubeconfigPath() {
  const char* env = getenv("KUBECONFIG");
  return DefaultKubeconfigPathFrom(env != nullptr ? env : "", HomeDir());
}

}  // namespace kmock::kubeconfig
