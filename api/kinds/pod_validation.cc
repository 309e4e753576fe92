// Pod validation in kube-apiserver's field paths and messages.
#include <set>
#include <string>

#include "api/kinds/pod.h"
#include "api/kinds/quantity.h"
#include "api/kinds/util.h"
#include "api/validation.h"

namespace kmock::api::kinds {

namespace {

std::set<std::string> ValidateVolumes(const json& pod, FieldErrors* errs) {
  std::set<std::string> names;
  const json& volumes = Array(pod, {"spec", "volumes"});
  for (size_t i = 0; i < volumes.size(); ++i) {
    const json& v = volumes[i];
    std::string path = "spec.volumes[" + std::to_string(i) + "]";
    int sources = 0;
    for (const std::string& s : VolumeSourceNames()) {
      if (v.is_object() && v.contains(s) && !v[s].is_null()) ++sources;
    }
    if (sources == 0) {
      errs->Required(path, "must specify a volume type");
    } else if (sources > 1) {
      errs->Forbidden(path, "may not specify more than 1 volume type");
    }
    std::string name = Str(v, {"name"});
    if (name.empty()) {
      errs->Required(path + ".name");
    } else {
      ValidateDNS1123Label(name, path + ".name", errs);
    }
    if (names.count(name)) errs->Duplicate(path + ".name", name);
    names.insert(name);
  }
  return names;
}

void ValidateResources(const json& c, const std::string& path,
                       FieldErrors* errs) {
  const json* limits = Find(c, {"resources", "limits"});
  const json* requests = Find(c, {"resources", "requests"});
  for (const auto& [part, m] :
       {std::pair{"limits", limits}, std::pair{"requests", requests}}) {
    if (!m || !m->is_object()) continue;
    for (auto it = m->begin(); it != m->end(); ++it) {
      long double v = 0;
      std::string p = path + ".resources." + part + "[" + it.key() + "]";
      if (!ParseQuantity(*it, &v)) {
        errs->Invalid(p, *it,
                      "quantities must match the regular expression "
                      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
      } else if (v < 0) {
        errs->Invalid(p, *it, "must be greater than or equal to 0");
      }
    }
  }
  if (!requests || !requests->is_object() || !limits || !limits->is_object()) {
    return;
  }
  for (auto it = requests->begin(); it != requests->end(); ++it) {
    auto lim = limits->find(it.key());
    if (lim == limits->end()) continue;
    long double rv = 0, lv = 0;
    if (!ParseQuantity(*it, &rv) || !ParseQuantity(*lim, &lv)) continue;
    if (rv > lv) {
      std::string limit_str =
          lim->is_string() ? lim->get<std::string>() : lim->dump();
      errs->Invalid(path + ".resources.requests",
                    it->is_string() ? *it : json(it->dump()),
                    "must be less than or equal to " + it.key() + " limit of " +
                        limit_str);
    }
  }
}

void ValidateContainer(const json& c, const std::string& path,
                       const std::set<std::string>& volumes,
                       std::set<std::string>* all_names, FieldErrors* errs) {
  std::string name = Str(c, {"name"});
  if (name.empty()) {
    errs->Required(path + ".name");
  } else {
    ValidateDNS1123Label(name, path + ".name", errs);
  }
  std::string image = Str(c, {"image"});
  if (image.empty()) {
    errs->Required(path + ".image");
  } else if (image.find_first_not_of(" \t\n\r") != 0 ||
             image.find_last_not_of(" \t\n\r") != image.size() - 1) {
    errs->Invalid(path + ".image", image,
                  "must not have leading or trailing whitespace");
  }
  // Ports.
  std::set<std::string> port_names;
  const json& ports = Array(c, {"ports"});
  for (size_t i = 0; i < ports.size(); ++i) {
    const json& p = ports[i];
    std::string pp = path + ".ports[" + std::to_string(i) + "]";
    std::string pname = Str(p, {"name"});
    if (!pname.empty()) {
      auto msgs = IsValidPortName(pname);
      for (const std::string& m : msgs) errs->Invalid(pp + ".name", pname, m);
      if (msgs.empty() && port_names.count(pname)) {
        errs->Duplicate(pp + ".name", pname);
      }
      port_names.insert(pname);
    }
    int64_t cport = Int(p, {"containerPort"});
    if (cport == 0) {
      errs->Required(pp + ".containerPort");
    } else {
      for (const std::string& m : IsValidPortNum(cport)) {
        errs->Invalid(pp + ".containerPort", cport, m);
      }
    }
    int64_t hport = Int(p, {"hostPort"});
    if (hport != 0) {
      for (const std::string& m : IsValidPortNum(hport)) {
        errs->Invalid(pp + ".hostPort", hport, m);
      }
    }
    std::string proto = Str(p, {"protocol"});
    if (proto.empty()) {
      errs->Required(pp + ".protocol");
    } else if (proto != "TCP" && proto != "UDP" && proto != "SCTP") {
      errs->NotSupported(pp + ".protocol", proto, {"SCTP", "TCP", "UDP"});
    }
  }
  // Environment.
  const json& env = Array(c, {"env"});
  for (size_t i = 0; i < env.size(); ++i) {
    if (Str(env[i], {"name"}).empty()) {
      errs->Required(path + ".env[" + std::to_string(i) + "].name");
    }
  }
  // Volume mounts.
  std::set<std::string> mount_paths;
  const json& mounts = Array(c, {"volumeMounts"});
  for (size_t i = 0; i < mounts.size(); ++i) {
    std::string mp = path + ".volumeMounts[" + std::to_string(i) + "]";
    std::string mname = Str(mounts[i], {"name"});
    std::string mpath = Str(mounts[i], {"mountPath"});
    if (mname.empty()) errs->Required(mp + ".name");
    if (!volumes.count(mname)) errs->NotFound(mp + ".name", mname);
    if (mpath.empty()) errs->Required(mp + ".mountPath");
    if (mount_paths.count(mpath)) {
      errs->Invalid(mp + ".mountPath", mpath, "must be unique");
    }
    mount_paths.insert(mpath);
  }
  std::string pull = Str(c, {"imagePullPolicy"});
  if (pull.empty()) {
    errs->Required(path + ".imagePullPolicy");
  } else if (pull != "Always" && pull != "IfNotPresent" && pull != "Never") {
    errs->NotSupported(path + ".imagePullPolicy", pull,
                       {"Always", "IfNotPresent", "Never"});
  }
  std::string tmp = Str(c, {"terminationMessagePolicy"});
  if (tmp.empty()) {
    errs->Required(path + ".terminationMessagePolicy");
  } else if (tmp != "File" && tmp != "FallbackToLogsOnError") {
    errs->NotSupported(path + ".terminationMessagePolicy", tmp,
                       {"File", "FallbackToLogsOnError"});
  }
  ValidateResources(c, path, errs);
  if (!name.empty()) {
    if (all_names->count(name)) errs->Duplicate(path + ".name", name);
    all_names->insert(name);
  }
}

}  // namespace

void ValidatePod(const json& pod, FieldErrors* errs) {
  std::set<std::string> volumes = ValidateVolumes(pod, errs);
  std::set<std::string> names;
  const json& containers = Array(pod, {"spec", "containers"});
  if (containers.empty()) errs->Required("spec.containers");
  for (size_t i = 0; i < containers.size(); ++i) {
    ValidateContainer(containers[i],
                      "spec.containers[" + std::to_string(i) + "]", volumes,
                      &names, errs);
  }
  const json& inits = Array(pod, {"spec", "initContainers"});
  for (size_t i = 0; i < inits.size(); ++i) {
    ValidateContainer(inits[i],
                      "spec.initContainers[" + std::to_string(i) + "]", volumes,
                      &names, errs);
  }
  std::string restart = Str(pod, {"spec", "restartPolicy"});
  if (restart.empty()) {
    errs->Required("spec.restartPolicy");
  } else if (restart != "Always" && restart != "OnFailure" &&
             restart != "Never") {
    errs->NotSupported("spec.restartPolicy", restart,
                       {"Always", "OnFailure", "Never"});
  }
  std::string dns = Str(pod, {"spec", "dnsPolicy"});
  if (dns.empty()) {
    errs->Required("spec.dnsPolicy");
  } else if (dns != "ClusterFirst" && dns != "ClusterFirstWithHostNet" &&
             dns != "Default" && dns != "None") {
    errs->NotSupported(
        "spec.dnsPolicy", dns,
        {"ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"});
  }
  std::string sa = Str(pod, {"spec", "serviceAccountName"});
  if (!sa.empty()) {
    for (const std::string& m : IsDNS1123Subdomain(sa)) {
      errs->Invalid("spec.serviceAccountName", sa, m);
    }
  }
  std::string node = Str(pod, {"spec", "nodeName"});
  if (!node.empty()) {
    for (const std::string& m : IsDNS1123Subdomain(node)) {
      errs->Invalid("spec.nodeName", node, m);
    }
  }
  if (const json* ads = Find(pod, {"spec", "activeDeadlineSeconds"});
      ads && ads->is_number()) {
    int64_t v = ads->get<int64_t>();
    if (v < 1 || v > 2147483647) {
      errs->Invalid("spec.activeDeadlineSeconds", v,
                    "must be between 1 and 2147483647, inclusive");
    }
  }
  for (const char* f : {"hostname", "subdomain"}) {
    std::string v = Str(pod, {"spec", f});
    if (!v.empty()) ValidateDNS1123Label(v, std::string("spec.") + f, errs);
  }
}

}  // namespace kmock::api::kinds
