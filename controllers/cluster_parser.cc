#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "api/validation.h"
#include "controllers/cluster.h"
#include "controllers/ip_allocator.h"
#include "controllers/quantity.h"

namespace kmock::controllers {

namespace {

using nlohmann::json;

Status Invalid(const std::string& path, const std::string& msg) {
  return Status(StatusCode::kInvalid, path + ": " + msg);
}

// YAML to JSON: plain scalars that read as booleans or numbers become
// those; quoted scalars stay strings.
json ToJson(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      if (n.Tag() == "!") return s;
      if (s == "true") return true;
      if (s == "false") return false;
      if (s == "null" || s == "~") return nullptr;
      static const std::regex kInt("^-?[0-9]+$");
      static const std::regex kFloat("^-?[0-9]*\\.[0-9]+$");
      if (std::regex_match(s, kInt)) {
        try {
          return std::stoll(s);
        } catch (...) {
          return s;
        }
      }
      if (std::regex_match(s, kFloat)) return std::stod(s);
      return s;
    }
    case YAML::NodeType::Sequence: {
      json a = json::array();
      for (const auto& e : n) a.push_back(ToJson(e));
      return a;
    }
    case YAML::NodeType::Map: {
      json o = json::object();
      for (const auto& kv : n) o[kv.first.Scalar()] = ToJson(kv.second);
      return o;
    }
  }
  return nullptr;
}

Status CheckKeys(const json& obj, const std::string& path,
                 const std::set<std::string>& allowed) {
  for (const auto& [k, v] : obj.items()) {
    if (!allowed.count(k)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      return Invalid(path.empty() ? k : path + "." + k,
                     "unknown field (known fields: " + list + ")");
    }
  }
  return Status::Ok();
}

// A string field; numbers are accepted and written out ("2" for 2).
Status ReadString(const json& obj, const std::string& key,
                  const std::string& path, std::string* out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return Status::Ok();
  if (it->is_string()) {
    *out = it->get<std::string>();
  } else if (it->is_number_integer()) {
    *out = std::to_string(it->get<int64_t>());
  } else if (it->is_number()) {
    std::ostringstream s;
    s << it->get<double>();
    *out = s.str();
  } else {
    return Invalid(path + key, "must be a string");
  }
  return Status::Ok();
}

Status ReadStringList(const json& obj, const std::string& key,
                      const std::string& path, std::vector<std::string>* out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return Status::Ok();
  if (!it->is_array()) return Invalid(path + key, "must be a list of strings");
  out->clear();
  for (size_t i = 0; i < it->size(); ++i) {
    if (!(*it)[i].is_string()) {
      return Invalid(path + key + "[" + std::to_string(i) + "]",
                     "must be a string");
    }
    out->push_back((*it)[i].get<std::string>());
  }
  return Status::Ok();
}

Status ReadMs(const json& obj, const std::string& key, const std::string& path,
              std::chrono::milliseconds* out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return Status::Ok();
  if (!it->is_number_integer() || it->get<int64_t>() < 0) {
    return Invalid(path + key,
                   "must be a non-negative whole number of milliseconds");
  }
  *out = std::chrono::milliseconds(it->get<int64_t>());
  return Status::Ok();
}

Status ParsePacing(const json& p, lifecycle::StagePacing* out) {
  const std::string path = "pacing.";
  if (!p.is_object()) return Invalid("pacing", "must be a mapping");
  KMOCK_RETURN_IF_ERROR(
      CheckKeys(p, "pacing",
                {"sandboxMs", "pullMs", "createMs", "startMs", "initRunMs",
                 "readyMs", "killMs", "removeMs", "syncMs", "jitter"}));
  KMOCK_RETURN_IF_ERROR(ReadMs(p, "sandboxMs", path, &out->sandbox));
  KMOCK_RETURN_IF_ERROR(ReadMs(p, "pullMs", path, &out->pull));
  KMOCK_RETURN_IF_ERROR(ReadMs(p, "createMs", path, &out->create));
  KMOCK_RETURN_IF_ERROR(ReadMs(p, "startMs", path, &out->start));
  KMOCK_RETURN_IF_ERROR(ReadMs(p, "initRunMs", path, &out->init_run));
  KMOCK_RETURN_IF_ERROR(ReadMs(p, "readyMs", path, &out->ready));
  KMOCK_RETURN_IF_ERROR(ReadMs(p, "killMs", path, &out->kill));
  KMOCK_RETURN_IF_ERROR(ReadMs(p, "removeMs", path, &out->remove));
  KMOCK_RETURN_IF_ERROR(ReadMs(p, "syncMs", path, &out->sync));
  if (p.contains("jitter")) {
    if (!p["jitter"].is_number() || p["jitter"].get<double>() < 0 ||
        p["jitter"].get<double>() > 1) {
      return Invalid("pacing.jitter", "must be a number from 0 to 1");
    }
    out->jitter = p["jitter"].get<double>();
  }
  return Status::Ok();
}

Status ParseNode(const json& n, const std::string& path, NodeSpec* out) {
  if (!n.is_object()) return Invalid(path, "must be a mapping");
  KMOCK_RETURN_IF_ERROR(
      CheckKeys(n, path,
                {"name", "roles", "components", "labels", "taints", "capacity",
                 "zone", "podCIDR", "internalIP", "instanceType", "osImage",
                 "kernelVersion", "containerRuntimeVersion"}));
  std::string p = path + ".";
  KMOCK_RETURN_IF_ERROR(ReadString(n, "name", p, &out->name));
  if (out->name.empty()) return Invalid(p + "name", "required");
  KMOCK_RETURN_IF_ERROR(ReadStringList(n, "roles", p, &out->roles));
  KMOCK_RETURN_IF_ERROR(ReadStringList(n, "components", p, &out->components));
  if (n.contains("labels") && !n["labels"].is_null()) {
    if (!n["labels"].is_object())
      return Invalid(p + "labels", "must be a mapping");
    for (const auto& [k, v] : n["labels"].items()) {
      std::string value;
      KMOCK_RETURN_IF_ERROR(ReadString(n["labels"], k, p + "labels.", &value));
      out->labels[k] = value;
    }
  }
  if (n.contains("taints") && !n["taints"].is_null()) {
    if (!n["taints"].is_array()) return Invalid(p + "taints", "must be a list");
    for (size_t i = 0; i < n["taints"].size(); ++i) {
      const json& t = n["taints"][i];
      std::string tp = p + "taints[" + std::to_string(i) + "]";
      if (!t.is_object()) return Invalid(tp, "must be a mapping");
      KMOCK_RETURN_IF_ERROR(CheckKeys(t, tp, {"key", "value", "effect"}));
      TaintSpec ts;
      KMOCK_RETURN_IF_ERROR(ReadString(t, "key", tp + ".", &ts.key));
      KMOCK_RETURN_IF_ERROR(ReadString(t, "value", tp + ".", &ts.value));
      KMOCK_RETURN_IF_ERROR(ReadString(t, "effect", tp + ".", &ts.effect));
      if (ts.key.empty()) return Invalid(tp + ".key", "required");
      if (ts.effect != "NoSchedule" && ts.effect != "PreferNoSchedule" &&
          ts.effect != "NoExecute") {
        return Invalid(tp + ".effect",
                       "unsupported value \"" + ts.effect +
                           "\": supported values: \"NoSchedule\", "
                           "\"PreferNoSchedule\", \"NoExecute\"");
      }
      out->taints.push_back(ts);
    }
  }
  if (n.contains("capacity") && !n["capacity"].is_null()) {
    const json& c = n["capacity"];
    std::string cp = p + "capacity";
    if (!c.is_object()) return Invalid(cp, "must be a mapping");
    KMOCK_RETURN_IF_ERROR(
        CheckKeys(c, cp, {"cpu", "memory", "pods", "ephemeral-storage"}));
    KMOCK_RETURN_IF_ERROR(ReadString(c, "cpu", cp + ".", &out->capacity.cpu));
    KMOCK_RETURN_IF_ERROR(
        ReadString(c, "memory", cp + ".", &out->capacity.memory));
    KMOCK_RETURN_IF_ERROR(ReadString(c, "pods", cp + ".", &out->capacity.pods));
    KMOCK_RETURN_IF_ERROR(ReadString(c, "ephemeral-storage", cp + ".",
                                     &out->capacity.ephemeral_storage));
  }
  KMOCK_RETURN_IF_ERROR(ReadString(n, "zone", p, &out->zone));
  KMOCK_RETURN_IF_ERROR(ReadString(n, "podCIDR", p, &out->pod_cidr));
  KMOCK_RETURN_IF_ERROR(ReadString(n, "internalIP", p, &out->internal_ip));
  KMOCK_RETURN_IF_ERROR(ReadString(n, "instanceType", p, &out->instance_type));
  KMOCK_RETURN_IF_ERROR(ReadString(n, "osImage", p, &out->os_image));
  KMOCK_RETURN_IF_ERROR(
      ReadString(n, "kernelVersion", p, &out->kernel_version));
  KMOCK_RETURN_IF_ERROR(ReadString(n, "containerRuntimeVersion", p,
                                   &out->container_runtime_version));
  return Status::Ok();
}

bool IsDns1123Label(const std::string& s) {
  static const std::regex kLabel("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
  return s.size() <= 63 && std::regex_match(s, kLabel);
}

Status ParseIngressController(const json& c, const std::string& path,
                              IngressControllerSpec* out) {
  if (!c.is_object()) return Invalid(path, "must be a mapping");
  KMOCK_RETURN_IF_ERROR(CheckKeys(
      c, path, {"className", "controller", "namespace", "image", "default"}));
  const std::string p = path + ".";
  KMOCK_RETURN_IF_ERROR(ReadString(c, "className", p, &out->class_name));
  KMOCK_RETURN_IF_ERROR(ReadString(c, "controller", p, &out->controller));
  KMOCK_RETURN_IF_ERROR(ReadString(c, "namespace", p, &out->ns));
  KMOCK_RETURN_IF_ERROR(ReadString(c, "image", p, &out->image));
  if (auto d = c.find("default"); d != c.end() && !d->is_null()) {
    if (!d->is_boolean())
      return Invalid(p + "default", "must be true or false");
    out->default_class = d->get<bool>();
  }
  if (!api::IsDNS1123Subdomain(out->class_name).empty()) {
    return Invalid(p + "className", "must be a DNS subdomain name");
  }
  // "<namespace>-controller" names the Deployment and the Service.
  if (!IsDns1123Label(out->ns) || out->ns.size() > 52) {
    return Invalid(p + "namespace",
                   "must be a DNS label of at most 52 characters");
  }
  if (out->controller.empty()) return Invalid(p + "controller", "required");
  if (out->image.empty()) return Invalid(p + "image", "required");
  return Status::Ok();
}

}  // namespace

Status CompleteClusterSpec(ClusterSpec* spec) {
  if (spec->nodes.empty())
    return Invalid("nodes", "at least one node is required");
  static const char* kZoneLetters = "abc";
  // Defaults for node i: the first 256 nodes get 10.244.i.0/24 (the usual
  // 10.244.0.0/16 cluster CIDR) and 10.0.{1,2,3}.(10+i); larger clusters go
  // on in 10.128.0.0/9 and 10.16.0.0/12, so 5,000 nodes never collide.
  auto DefaultPodCidr = [](size_t i) {
    if (i < 256) return "10.244." + std::to_string(i) + ".0/24";
    size_t k = i - 256;
    return "10." + std::to_string(128 + k / 256) + "." +
           std::to_string(k % 256) + ".0/24";
  };
  auto DefaultInternalIp = [](size_t i) {
    if (i < 240) {
      return "10.0." + std::to_string(i % 3 + 1) + "." + std::to_string(10 + i);
    }
    size_t k = i + 1;
    return "10." + std::to_string(16 + k / 65536) + "." +
           std::to_string((k / 256) % 256) + "." + std::to_string(k % 256);
  };
  std::set<std::string> names, ips, cidrs;
  bool any_components = false;
  for (size_t i = 0; i < spec->nodes.size(); ++i) {
    NodeSpec& n = spec->nodes[i];
    std::string p = "nodes[" + std::to_string(i) + "]";
    if (!IsDns1123Label(n.name)) {
      return Invalid(p + ".name", "invalid value \"" + n.name +
                                      "\": must be a lowercase RFC 1123 label");
    }
    if (!names.insert(n.name).second) {
      return Invalid(p + ".name", "duplicate node name \"" + n.name + "\"");
    }
    if (n.zone.empty()) n.zone = spec->region + kZoneLetters[i % 3];
    if (n.pod_cidr.empty()) n.pod_cidr = DefaultPodCidr(i);
    if (n.internal_ip.empty()) n.internal_ip = DefaultInternalIp(i);
    if (n.instance_type.empty()) n.instance_type = "t3.xlarge";
    auto alloc = IpAllocator::Create(n.pod_cidr);
    if (!alloc.ok()) return Invalid(p + ".podCIDR", alloc.status().message());
    if (!cidrs.insert(n.pod_cidr).second) {
      return Invalid(p + ".podCIDR",
                     "overlaps another node's \"" + n.pod_cidr + "\"");
    }
    uint32_t ip;
    if (!ParseIpv4(n.internal_ip, &ip)) {
      return Invalid(p + ".internalIP", "invalid value \"" + n.internal_ip +
                                            "\": must be an IPv4 address");
    }
    if (!ips.insert(n.internal_ip).second) {
      return Invalid(p + ".internalIP", "duplicate address " + n.internal_ip);
    }
    struct {
      const char* field;
      const std::string* value;
    } quantities[] = {{"cpu", &n.capacity.cpu},
                      {"memory", &n.capacity.memory},
                      {"pods", &n.capacity.pods},
                      {"ephemeral-storage", &n.capacity.ephemeral_storage}};
    for (const auto& q : quantities) {
      auto v = ParseMilliValue(json(*q.value));
      if (!v.ok() || *v <= 0) {
        return Invalid(p + ".capacity." + q.field,
                       "invalid quantity \"" + *q.value + "\"");
      }
    }
    for (const auto& c : n.components) {
      bool known = false;
      for (const auto& k : ControlPlaneComponents()) known |= (k == c);
      if (!known) {
        return Invalid(
            p + ".components",
            "unknown component \"" + c +
                "\": supported values: \"etcd\", \"kube-apiserver\", "
                "\"kube-controller-manager\", \"kube-scheduler\", "
                "\"cloud-controller-manager\"");
      }
      if (!spec->NodeRunning(c).empty() && spec->NodeRunning(c) != n.name) {
        return Invalid(p + ".components",
                       "\"" + c + "\" already runs on " + spec->NodeRunning(c));
      }
      any_components = true;
    }
  }
  if (!any_components) {
    NodeSpec* host = &spec->nodes[0];
    for (auto& n : spec->nodes) {
      if (std::find(n.roles.begin(), n.roles.end(), "control-plane") !=
          n.roles.end()) {
        host = &n;
        break;
      }
    }
    host->components = ControlPlaneComponents();
  }
  return Status::Ok();
}

Result<ClusterSpec> ParseClusterSpec(std::string_view text) {
  json root;
  try {
    YAML::Node doc = YAML::Load(std::string(text));
    root = ToJson(doc);
  } catch (const YAML::Exception& e) {
    return Status(StatusCode::kInvalid,
                  "cluster file is not valid YAML or JSON: line " +
                      std::to_string(e.mark.line + 1) + ", column " +
                      std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  if (!root.is_object()) {
    return Status(StatusCode::kInvalid,
                  "cluster file: the top level must be a mapping with a "
                  "\"nodes\" list");
  }
  KMOCK_RETURN_IF_ERROR(CheckKeys(
      root, "", {"name", "region", "pacing", "nodes", "ingressControllers"}));
  ClusterSpec spec;
  KMOCK_RETURN_IF_ERROR(ReadString(root, "name", "", &spec.name));
  KMOCK_RETURN_IF_ERROR(ReadString(root, "region", "", &spec.region));
  if (root.contains("pacing") && !root["pacing"].is_null()) {
    KMOCK_RETURN_IF_ERROR(ParsePacing(root["pacing"], &spec.pacing));
  }
  if (!root.contains("nodes") || !root["nodes"].is_array()) {
    return Invalid("nodes", "required: a list of nodes");
  }
  for (size_t i = 0; i < root["nodes"].size(); ++i) {
    NodeSpec n;
    KMOCK_RETURN_IF_ERROR(
        ParseNode(root["nodes"][i], "nodes[" + std::to_string(i) + "]", &n));
    spec.nodes.push_back(std::move(n));
  }
  if (auto ic = root.find("ingressControllers");
      ic != root.end() && !ic->is_null()) {
    if (!ic->is_array()) return Invalid("ingressControllers", "must be a list");
    std::set<std::string> classes, namespaces;
    for (size_t i = 0; i < ic->size(); ++i) {
      const std::string path = "ingressControllers[" + std::to_string(i) + "]";
      IngressControllerSpec c;
      KMOCK_RETURN_IF_ERROR(ParseIngressController((*ic)[i], path, &c));
      if (!classes.insert(c.class_name).second) {
        return Invalid(path + ".className",
                       "duplicate value \"" + c.class_name + "\"");
      }
      if (!namespaces.insert(c.ns).second) {
        return Invalid(path + ".namespace", "duplicate value \"" + c.ns + "\"");
      }
      spec.ingress_controllers.push_back(std::move(c));
    }
  }
  KMOCK_RETURN_IF_ERROR(CompleteClusterSpec(&spec));
  return spec;
}

Result<ClusterSpec> LoadClusterFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return Status(StatusCode::kInvalid, "cannot read cluster file " + path);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  auto spec = ParseClusterSpec(ss.str());
  if (!spec.ok()) {
    return Status(StatusCode::kInvalid, path + ": " + spec.status().message());
  }
  return spec;
}

}  // namespace kmock::controllers
