// Pod defaulting: the v1 scheme defaults and the create-time admission
// plugins a real cluster runs (ServiceAccount, DefaultTolerationSeconds,
// Priority).
#include <cstdint>
#include <string>

#include "api/kinds/pod.h"
#include "api/kinds/quantity.h"
#include "api/kinds/util.h"
#include "api/schema.h"
#include "common/fnv.h"
#include "common/json_view.h"

namespace kmock::api::kinds {

namespace {

const char kTokenMountPath[] = "/var/run/secrets/kubernetes.io/serviceaccount";

void SetIfAbsent(json& obj, const char* key, json value) {
  if (!obj.contains(key) || obj[key].is_null()) obj[key] = std::move(value);
}

// "Always" for ":latest" or an untagged image, else "IfNotPresent".
std::string DefaultPullPolicy(const std::string& image) {
  if (image.find('@') != std::string::npos) return "IfNotPresent";
  size_t slash = image.rfind('/');
  size_t colon = image.rfind(':');
  bool has_tag = colon != std::string::npos &&
                 (slash == std::string::npos || colon > slash);
  if (!has_tag) return "Always";
  return image.substr(colon + 1) == "latest" ? "Always" : "IfNotPresent";
}

void DefaultProbe(json& probe) {
  if (!probe.is_object()) return;
  SetIfAbsent(probe, "timeoutSeconds", 1);
  SetIfAbsent(probe, "periodSeconds", 10);
  SetIfAbsent(probe, "successThreshold", 1);
  SetIfAbsent(probe, "failureThreshold", 3);
  if (probe.contains("httpGet") && probe["httpGet"].is_object()) {
    SetIfAbsent(probe["httpGet"], "path", "/");
    SetIfAbsent(probe["httpGet"], "scheme", "HTTP");
  }
  if (probe.contains("grpc") && probe["grpc"].is_object()) {
    SetIfAbsent(probe["grpc"], "service", "");
  }
}

void DefaultLifecycleHandler(json& handler) {
  if (handler.is_object() && handler.contains("httpGet") &&
      handler["httpGet"].is_object()) {
    SetIfAbsent(handler["httpGet"], "path", "/");
    SetIfAbsent(handler["httpGet"], "scheme", "HTTP");
  }
}

void DefaultEnv(json& env) {
  if (!env.is_array()) return;
  for (json& e : env) {
    json* field_ref =
        e.is_object() && e.contains("valueFrom") ? &e["valueFrom"] : nullptr;
    if (!field_ref || !field_ref->is_object()) continue;
    if (field_ref->contains("fieldRef") &&
        (*field_ref)["fieldRef"].is_object()) {
      SetIfAbsent((*field_ref)["fieldRef"], "apiVersion", "v1");
    }
    if (field_ref->contains("resourceFieldRef") &&
        (*field_ref)["resourceFieldRef"].is_object()) {
      SetIfAbsent((*field_ref)["resourceFieldRef"], "divisor", "0");
    }
  }
}

void DefaultContainer(json& c, bool host_network) {
  if (!c.is_object()) return;
  if (!c.contains("imagePullPolicy") || c["imagePullPolicy"] == "") {
    c["imagePullPolicy"] = DefaultPullPolicy(c.value("image", std::string()));
  }
  SetIfAbsent(c, "terminationMessagePath", "/dev/termination-log");
  SetIfAbsent(c, "terminationMessagePolicy", "File");
  json& resources = ObjectAt(c, "resources");
  // Requests default to limits where only a limit is given.
  if (resources.contains("limits") && resources["limits"].is_object()) {
    for (auto it = resources["limits"].begin(); it != resources["limits"].end();
         ++it) {
      json& requests = ObjectAt(resources, "requests");
      if (!requests.contains(it.key())) requests[it.key()] = *it;
    }
  }
  if (c.contains("ports") && c["ports"].is_array()) {
    for (json& p : c["ports"]) {
      if (!p.is_object()) continue;
      SetIfAbsent(p, "protocol", "TCP");
      if (host_network && !p.contains("hostPort") &&
          p.contains("containerPort")) {
        p["hostPort"] = p["containerPort"];
      }
    }
  }
  for (const char* probe :
       {"livenessProbe", "readinessProbe", "startupProbe"}) {
    if (c.contains(probe)) DefaultProbe(c[probe]);
  }
  if (c.contains("lifecycle") && c["lifecycle"].is_object()) {
    for (const char* h : {"postStart", "preStop"}) {
      if (c["lifecycle"].contains(h))
        DefaultLifecycleHandler(c["lifecycle"][h]);
    }
  }
  if (c.contains("env")) DefaultEnv(c["env"]);
}

void DefaultItemsFieldRefs(json& items) {
  if (!items.is_array()) return;
  for (json& item : items) {
    if (item.is_object() && item.contains("fieldRef") &&
        item["fieldRef"].is_object()) {
      SetIfAbsent(item["fieldRef"], "apiVersion", "v1");
    }
    if (item.is_object() && item.contains("resourceFieldRef") &&
        item["resourceFieldRef"].is_object()) {
      SetIfAbsent(item["resourceFieldRef"], "divisor", "0");
    }
  }
}

void DefaultVolume(json& v) {
  if (!v.is_object()) return;
  bool has_source = false;
  for (const std::string& s : VolumeSourceNames()) has_source |= v.contains(s);
  if (!has_source) v["emptyDir"] = json::object();
  for (const char* s : {"secret", "configMap", "downwardAPI", "projected"}) {
    if (v.contains(s) && v[s].is_object())
      SetIfAbsent(v[s], "defaultMode", 420);
  }
  if (v.contains("hostPath") && v["hostPath"].is_object()) {
    SetIfAbsent(v["hostPath"], "type", "");
  }
  if (v.contains("downwardAPI") && v["downwardAPI"].is_object() &&
      v["downwardAPI"].contains("items")) {
    DefaultItemsFieldRefs(v["downwardAPI"]["items"]);
  }
  if (v.contains("projected") && v["projected"].is_object() &&
      v["projected"].contains("sources") &&
      v["projected"]["sources"].is_array()) {
    for (json& src : v["projected"]["sources"]) {
      if (!src.is_object()) continue;
      if (src.contains("downwardAPI") && src["downwardAPI"].is_object() &&
          src["downwardAPI"].contains("items")) {
        DefaultItemsFieldRefs(src["downwardAPI"]["items"]);
      }
      if (src.contains("serviceAccountToken") &&
          src["serviceAccountToken"].is_object()) {
        SetIfAbsent(src["serviceAccountToken"], "expirationSeconds", 3600);
      }
    }
  }
  if (v.contains("iscsi") && v["iscsi"].is_object()) {
    SetIfAbsent(v["iscsi"], "iscsiInterface", "default");
  }
  if (v.contains("azureDisk") && v["azureDisk"].is_object()) {
    SetIfAbsent(v["azureDisk"], "cachingMode", "ReadWrite");
    SetIfAbsent(v["azureDisk"], "fsType", "ext4");
    SetIfAbsent(v["azureDisk"], "readOnly", false);
    SetIfAbsent(v["azureDisk"], "kind", "Shared");
  }
}

bool HasTolerationFor(const json& tolerations, const std::string& key) {
  if (!tolerations.is_array()) return false;
  for (const json& t : tolerations) {
    std::string op = Str(t, {"operator"});
    std::string tkey = Str(t, {"key"});
    std::string effect = Str(t, {"effect"});
    bool key_ok = tkey == key || (tkey.empty() && op == "Exists");
    bool effect_ok = effect.empty() || effect == "NoExecute";
    if (key_ok && effect_ok) return true;
  }
  return false;
}

// The basis these values have always been derived from (not FNV's
// standard one): changing it would change what defaulting gives.
uint64_t Fnv1a(const std::string& s) {
  return Fnv1a64(s, 1469598103934665603ULL);
}

bool HasRequestOrLimit(const json& c) {
  for (const char* part : {"requests", "limits"}) {
    const json* m = Find(c, {"resources", part});
    if (m && m->is_object() && (m->contains("cpu") || m->contains("memory"))) {
      return true;
    }
  }
  return false;
}

}  // namespace

void DefaultPod(json& pod) {
  json& spec = ObjectAt(pod, "spec");
  SetIfAbsent(spec, "restartPolicy", "Always");
  SetIfAbsent(spec, "dnsPolicy", "ClusterFirst");
  SetIfAbsent(spec, "schedulerName", "default-scheduler");
  SetIfAbsent(spec, "terminationGracePeriodSeconds", 30);
  SetIfAbsent(spec, "securityContext", json::object());
  SetIfAbsent(spec, "enableServiceLinks", true);
  if (spec.contains("serviceAccountName") && spec["serviceAccountName"] != "") {
    SetIfAbsent(spec, "serviceAccount", spec["serviceAccountName"]);
  }
  bool host_network = Bool(pod, {"spec", "hostNetwork"});
  for (const char* list :
       {"initContainers", "containers", "ephemeralContainers"}) {
    if (spec.contains(list) && spec[list].is_array()) {
      for (json& c : spec[list]) DefaultContainer(c, host_network);
    }
  }
  if (spec.contains("volumes") && spec["volumes"].is_array()) {
    for (json& v : spec["volumes"]) DefaultVolume(v);
  }
}

void AdmitPod(json& pod, const std::string& suffix) {
  json& spec = ObjectAt(pod, "spec");
  // ServiceAccount admission.
  if (!spec.contains("serviceAccountName") ||
      spec["serviceAccountName"] == "") {
    spec["serviceAccountName"] = spec.contains("serviceAccount") &&
                                         spec["serviceAccount"].is_string() &&
                                         spec["serviceAccount"] != ""
                                     ? spec["serviceAccount"]
                                     : json("default");
  }
  spec["serviceAccount"] = spec["serviceAccountName"];
  bool automount = !(spec.contains("automountServiceAccountToken") &&
                     spec["automountServiceAccountToken"] == false);
  bool already_mounted = false;
  for (const char* list : {"initContainers", "containers"}) {
    for (const json& c : Array(pod, {"spec", list})) {
      for (const json& m : Array(c, {"volumeMounts"})) {
        if (Str(m, {"mountPath"}) == kTokenMountPath) already_mounted = true;
      }
    }
  }
  if (automount && !already_mounted) {
    std::string name = "kube-api-access-" + suffix;
    json volume = {
        {"name", name},
        {"projected",
         {{"defaultMode", 420},
          {"sources",
           json::array(
               {{{"serviceAccountToken",
                  {{"expirationSeconds", 3607}, {"path", "token"}}}},
                {{"configMap",
                  {{"name", "kube-root-ca.crt"},
                   {"items",
                    json::array({{{"key", "ca.crt"}, {"path", "ca.crt"}}})}}}},
                {{"downwardAPI",
                  {{"items",
                    json::array(
                        {{{"path", "namespace"},
                          {"fieldRef",
                           {{"apiVersion", "v1"},
                            {"fieldPath", "metadata.namespace"}}}}})}}}}})}}}};
    if (!spec.contains("volumes") || !spec["volumes"].is_array()) {
      spec["volumes"] = json::array();
    }
    spec["volumes"].push_back(volume);
    json mount = {
        {"name", name}, {"readOnly", true}, {"mountPath", kTokenMountPath}};
    for (const char* list : {"initContainers", "containers"}) {
      if (!spec.contains(list) || !spec[list].is_array()) continue;
      for (json& c : spec[list]) {
        if (!c.is_object()) continue;
        if (!c.contains("volumeMounts") || !c["volumeMounts"].is_array()) {
          c["volumeMounts"] = json::array();
        }
        c["volumeMounts"].push_back(mount);
      }
    }
  }
  // DefaultTolerationSeconds admission.
  for (const char* key :
       {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    if (HasTolerationFor(ValueAt(spec, "tolerations"), key)) continue;
    if (!spec.contains("tolerations") || !spec["tolerations"].is_array()) {
      spec["tolerations"] = json::array();
    }
    spec["tolerations"].push_back({{"key", key},
                                   {"operator", "Exists"},
                                   {"effect", "NoExecute"},
                                   {"tolerationSeconds", 300}});
  }
  // Priority and preemption policy come from the registry's Priority
  // admission (registry/admission/priority.h), which reads the classes.
}

std::string TokenVolumeSuffix(const json& pod) {
  std::string seed = Str(pod, {"metadata", "uid"});
  if (seed.empty()) {
    seed = Str(pod, {"metadata", "namespace"}) + "/" +
           Str(pod, {"metadata", "name"});
  }
  static const char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  uint64_t h = Fnv1a(seed);
  std::string out;
  for (int i = 0; i < 5; ++i) {
    out.push_back(kAlphabet[h % (sizeof(kAlphabet) - 1)]);
    h /= (sizeof(kAlphabet) - 1);
  }
  return out;
}

std::string PodQosClass(const json& pod) {
  bool any = false;
  bool guaranteed = true;
  for (const char* list : {"initContainers", "containers"}) {
    for (const json& c : Array(pod, {"spec", list})) {
      if (HasRequestOrLimit(c)) any = true;
      for (const char* r : {"cpu", "memory"}) {
        const json* limit = Find(c, {"resources", "limits", r});
        const json* request = Find(c, {"resources", "requests", r});
        if (!limit) {
          guaranteed = false;
          continue;
        }
        long double lv = 0, rv = 0;
        if (request && ParseQuantity(*request, &rv) &&
            ParseQuantity(*limit, &lv) && rv != lv) {
          guaranteed = false;
        }
      }
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

const std::vector<std::string>& VolumeSourceNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    if (const Type* t =
            Schema::Builtin().Find("io.k8s.api.core.v1.VolumeSource"))
      for (const Field& f : t->fields)
        if (!f.name.empty()) names.push_back(f.name);
    return names;
  }();
  return kNames;
}

}  // namespace kmock::api::kinds
