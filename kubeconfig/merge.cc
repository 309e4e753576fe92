// Building kubeconfig YAML: the standalone document and the merge of one
// entry into an existing document.
#include <yaml-cpp/yaml.h>

#include "kubeconfig/base64.h"
#include "kubeconfig/kubeconfig.h"
#include "kubeconfig/yaml_emit.h"

namespace kmock::kubeconfig {

namespace {

Status CheckEntry(const Entry& e) {
  if (e.name.empty()) return BadRequestError("kubeconfig entry needs a name");
  if (e.server.empty())
    return BadRequestError("kubeconfig entry needs a server URL");
  if (e.client_cert_pem.empty() != e.client_key_pem.empty()) {
    return BadRequestError(
        "kubeconfig entry needs both a client certificate and its key");
  }
  return Status::Ok();
}

YAML::Node ClusterItem(const Entry& e) {
  YAML::Node cluster;
  if (!e.ca_pem.empty())
    cluster["certificate-authority-data"] = Base64Encode(e.ca_pem);
  cluster["server"] = e.server;
  YAML::Node item;
  item["cluster"] = cluster;
  item["name"] = e.name;
  return item;
}

YAML::Node UserItem(const Entry& e) {
  YAML::Node user(YAML::NodeType::Map);
  if (!e.client_cert_pem.empty()) {
    user["client-certificate-data"] = Base64Encode(e.client_cert_pem);
    user["client-key-data"] = Base64Encode(e.client_key_pem);
  }
  if (!e.token.empty()) user["token"] = e.token;
  YAML::Node item;
  item["name"] = e.name;
  item["user"] = user;
  return item;
}

YAML::Node ContextItem(const Entry& e) {
  YAML::Node context;
  context["cluster"] = e.name;
  context["user"] = e.name;
  YAML::Node item;
  item["context"] = context;
  item["name"] = e.name;
  return item;
}

// `list` without the items named `name`, then `ours` appended.
Result<YAML::Node> Replace(const YAML::Node& list, const char* field,
                           const std::string& name, const YAML::Node& ours) {
  YAML::Node out(YAML::NodeType::Sequence);
  if (list && !list.IsNull()) {
    if (!list.IsSequence()) {
      return BadRequestError(std::string("kubeconfig field \"") + field +
                             "\" is not a list");
    }
    for (const auto& item : list) {
      if (!item.IsMap()) {
        return BadRequestError(std::string("an item of \"") + field +
                               "\" is not a map");
      }
      const YAML::Node item_name = item["name"];
      if (item_name && item_name.IsScalar() && item_name.Scalar() == name)
        continue;
      out.push_back(item);
    }
  }
  out.push_back(ours);
  return out;
}

}  // namespace

Result<std::string> StandaloneKubeconfigText(const Entry& e) {
  KMOCK_RETURN_IF_ERROR(CheckEntry(e));
  YAML::Node root;
  root["apiVersion"] = "v1";
  root["clusters"].push_back(ClusterItem(e));
  root["contexts"].push_back(ContextItem(e));
  root["current-context"] = e.name;
  root["kind"] = "Config";
  root["preferences"] = YAML::Node(YAML::NodeType::Map);
  root["users"].push_back(UserItem(e));
  return EmitYaml(root);
}

Result<std::string> MergeKubeconfigText(const std::string& existing,
                                        const Entry& e) {
  KMOCK_RETURN_IF_ERROR(CheckEntry(e));
  YAML::Node root;
  try {
    root = YAML::Load(existing);
  } catch (const YAML::Exception& ex) {
    return BadRequestError(std::string("not valid YAML: ") + ex.what());
  }
  if (!root || root.IsNull()) return StandaloneKubeconfigText(e);
  if (!root.IsMap())
    return BadRequestError("not a kubeconfig: the document is not a map");

  try {
    const YAML::Node& view = root;
    KMOCK_ASSIGN_OR_RETURN(
        YAML::Node clusters,
        Replace(view["clusters"], "clusters", e.name, ClusterItem(e)));
    KMOCK_ASSIGN_OR_RETURN(
        YAML::Node users, Replace(view["users"], "users", e.name, UserItem(e)));
    KMOCK_ASSIGN_OR_RETURN(
        YAML::Node contexts,
        Replace(view["contexts"], "contexts", e.name, ContextItem(e)));
    if (!view["apiVersion"]) root["apiVersion"] = "v1";
    if (!view["kind"]) root["kind"] = "Config";
    root["clusters"] = clusters;
    root["contexts"] = contexts;
    root["current-context"] = e.name;
    root["users"] = users;
  } catch (const YAML::Exception& ex) {
    return BadRequestError(std::string("not a kubeconfig: ") + ex.what());
  }
  return EmitYaml(root);
}

}  // namespace kmock::kubeconfig
