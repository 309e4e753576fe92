#include "server/handlers/pod_container.h"

#include "server/errors.h"

namespace kmock::server {

using nlohmann::json;

namespace {

std::vector<std::string> ContainerNames(const json& pod, const char* list) {
  std::vector<std::string> names;
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return names;
  auto it = spec->find(list);
  if (it == spec->end() || !it->is_array()) return names;
  for (const auto& c : *it) names.push_back(c.value("name", ""));
  return names;
}

std::string Bracketed(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? " " : "") + names[i];
  return out + "]";
}

}  // namespace

Result<std::string> PickContainer(const json& pod, const std::string& asked) {
  const std::string name = pod["metadata"].value("name", "");
  std::vector<std::string> main = ContainerNames(pod, "containers");
  std::vector<std::string> init = ContainerNames(pod, "initContainers");
  std::vector<std::string> eph = ContainerNames(pod, "ephemeralContainers");
  std::string container = asked;
  if (container.empty()) {
    std::string annotated;
    if (auto a = pod["metadata"].find("annotations");
        a != pod["metadata"].end() && a->is_object())
      annotated = a->value("kubectl.kubernetes.io/default-container", "");
    if (!annotated.empty()) {
      container = annotated;
    } else if (main.size() == 1) {
      container = main[0];
    } else {
      std::string msg = "a container name must be specified for pod " + name +
                        ", choose one of: " + Bracketed(main);
      if (!init.empty())
        msg += " or one of the init containers: " + Bracketed(init);
      if (!eph.empty())
        msg += " or one of the ephemeral containers: " + Bracketed(eph);
      return BadRequestError(msg);
    }
  }
  for (const auto* list : {&main, &init, &eph})
    for (const auto& c : *list)
      if (c == container) return container;
  return BadRequestError("container " + container + " is not valid for pod " +
                         name);
}

}  // namespace kmock::server
