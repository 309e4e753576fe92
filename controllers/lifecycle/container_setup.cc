#include "controllers/lifecycle/container_setup.h"

#include "api/kinds/service.h"
#include "common/go_base64.h"
#include "common/json_view.h"
#include "controllers/quantity.h"
#include "sim/image_catalog.h"
#include "sim/image_names.h"
#include "sim/programs.h"

namespace kmock::controllers::lifecycle {

using nlohmann::json;

const json* SpecOf(const json& pod, const ContainerRuntime& c) {
  for (const auto& sc :
       ArrayAt(ObjectAt(pod, "spec"), c.init ? "initContainers" : "containers"))
    if (sc.is_object() && sc.value("name", "") == c.name) return &sc;
  return nullptr;
}

namespace {

std::vector<std::string> Strings(const json& list) {
  std::vector<std::string> out;
  if (list.is_array())
    for (const auto& v : list)
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

// $(VAR) references in command, args and env values, as the kubelet
// expands them: $$ escapes, unknown references stay as written.
std::string ExpandRefs(
    const std::string& s,
    const std::vector<std::pair<std::string, std::string>>& env) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '$' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    if (s[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    size_t close = s[i + 1] == '(' ? s.find(')', i + 2) : std::string::npos;
    if (close == std::string::npos) {
      out += s[i];
      continue;
    }
    std::string name = s.substr(i + 2, close - i - 2);
    bool found = false;
    for (auto it = env.rbegin(); it != env.rend(); ++it) {
      if (it->first == name) {
        out += it->second;
        found = true;
        break;
      }
    }
    if (!found) out += s.substr(i, close - i + 1);
    i = close;
  }
  return out;
}

void SetEnv(std::vector<std::pair<std::string, std::string>>* env,
            const std::string& name, const std::string& value) {
  for (auto& [k, v] : *env) {
    if (k == name) {
      v = value;
      return;
    }
  }
  env->emplace_back(name, value);
}

// A fieldRef's value, for the fields a pod knows itself.
std::string FieldValue(const json& pod, const PodRuntime& rt,
                       const std::string& node, const std::string& path) {
  const json& md = ObjectAt(pod, "metadata");
  if (path == "metadata.name") return md.value("name", "");
  if (path == "metadata.namespace") return md.value("namespace", "");
  if (path == "metadata.uid") return md.value("uid", "");
  if (path == "spec.nodeName") return node;
  if (path == "spec.serviceAccountName")
    return ObjectAt(pod, "spec").value("serviceAccountName", "default");
  if (path == "status.podIP") return rt.pod_ip;
  if (path == "status.hostIP") return rt.host_ip;
  if (path.rfind("metadata.labels['", 0) == 0 ||
      path.rfind("metadata.annotations['", 0) == 0) {
    bool labels = path[9] == 'l';
    size_t start = path.find('\'') + 1;
    std::string key = path.substr(start, path.rfind('\'') - start);
    return ObjectAt(md, labels ? "labels" : "annotations").value(key, "");
  }
  return "";
}

// The keys of a ConfigMap or Secret and their bytes.
std::map<std::string, std::string> KeysOf(const json& obj, bool secret) {
  std::map<std::string, std::string> out;
  for (const char* field : {"data", "binaryData", "stringData"}) {
    const json& m = ObjectAt(obj, field);
    bool encoded = secret ? std::string(field) == "data"
                          : std::string(field) == "binaryData";
    for (auto it = m.begin(); it != m.end(); ++it) {
      if (!it->is_string()) continue;
      std::string v = it->get<std::string>();
      if (encoded) {
        size_t bad = 0;
        auto decoded = GoBase64Decode(v, &bad);
        if (!decoded) continue;
        v = std::move(*decoded);
      }
      out[it.key()] = std::move(v);
    }
  }
  return out;
}

std::optional<std::map<std::string, std::string>> Keys(
    const ObjectSource& objects, const char* plural, const std::string& name) {
  if (!objects || name.empty()) return std::nullopt;
  auto obj = objects(plural, name);
  if (!obj) return std::nullopt;
  return KeysOf(*obj, std::string(plural) == "secrets");
}

// The files (relative path -> bytes) of a configMap or secret source,
// with its items when it names them.
void ProjectKeys(const std::map<std::string, std::string>& keys,
                 const json& source, const std::string& prefix,
                 std::map<std::string, std::string>* files) {
  const json& items = ArrayAt(source, "items");
  if (items.empty()) {
    for (const auto& [k, v] : keys) (*files)[prefix + k] = v;
    return;
  }
  for (const auto& item : items) {
    auto it = keys.find(item.value("key", ""));
    if (it != keys.end())
      (*files)[prefix + item.value("path", it->first)] = it->second;
  }
}

void ProjectDownward(const json& pod, const PodRuntime& rt,
                     const std::string& node, const json& source,
                     std::map<std::string, std::string>* files) {
  for (const auto& item : ArrayAt(source, "items")) {
    const json& fr = ObjectAt(item, "fieldRef");
    if (fr.empty()) continue;
    std::string path = fr.value("fieldPath", "");
    std::string value;
    const json& md = ObjectAt(pod, "metadata");
    if (path == "metadata.labels" || path == "metadata.annotations") {
      const json& m =
          ObjectAt(md, path == "metadata.labels" ? "labels" : "annotations");
      for (auto it = m.begin(); it != m.end(); ++it)
        value += it.key() + "=\"" +
                 (it->is_string() ? it->get<std::string>() : "") + "\"\n";
      if (!value.empty()) value.pop_back();
    } else {
      value = FieldValue(pod, rt, node, path);
    }
    (*files)[item.value("path", "")] = value;
  }
}

// The files of one volume, by path inside it; nullopt for volumes that
// are directories of their own (emptyDir and the rest).
std::optional<std::map<std::string, std::string>> VolumeFiles(
    const json& pod, const PodRuntime& rt, const std::string& node,
    const json& volume, const PodSources& sources) {
  const ObjectSource& objects = sources.objects;
  std::map<std::string, std::string> files;
  if (const json& cm = ObjectAt(volume, "configMap"); !cm.empty()) {
    if (auto keys = Keys(objects, "configmaps", cm.value("name", "")))
      ProjectKeys(*keys, cm, "", &files);
    return files;
  }
  if (const json& s = ObjectAt(volume, "secret"); !s.empty()) {
    if (auto keys = Keys(objects, "secrets", s.value("secretName", "")))
      ProjectKeys(*keys, s, "", &files);
    return files;
  }
  if (const json& d = ObjectAt(volume, "downwardAPI"); !d.empty()) {
    ProjectDownward(pod, rt, node, d, &files);
    return files;
  }
  if (const json& p = ObjectAt(volume, "projected"); !p.empty()) {
    for (const auto& src : ArrayAt(p, "sources")) {
      if (const json& cm = ObjectAt(src, "configMap"); !cm.empty()) {
        if (auto keys = Keys(objects, "configmaps", cm.value("name", "")))
          ProjectKeys(*keys, cm, "", &files);
      } else if (const json& s = ObjectAt(src, "secret"); !s.empty()) {
        if (auto keys = Keys(objects, "secrets", s.value("name", "")))
          ProjectKeys(*keys, s, "", &files);
      } else if (const json& d = ObjectAt(src, "downwardAPI"); !d.empty()) {
        ProjectDownward(pod, rt, node, d, &files);
      } else if (const json& t = ObjectAt(src, "serviceAccountToken");
                 !t.empty() && sources.token) {
        if (auto token = sources.token(pod, t))
          files[t.value("path", "token")] = std::move(*token);
      }
    }
    return files;
  }
  return std::nullopt;
}

void AddEnvFrom(const json& sc, const ObjectSource& objects,
                std::vector<std::pair<std::string, std::string>>* env) {
  for (const auto& from : ArrayAt(sc, "envFrom")) {
    std::string prefix = from.value("prefix", "");
    std::optional<std::map<std::string, std::string>> keys;
    if (const json& cm = ObjectAt(from, "configMapRef"); !cm.empty())
      keys = Keys(objects, "configmaps", cm.value("name", ""));
    else if (const json& s = ObjectAt(from, "secretRef"); !s.empty())
      keys = Keys(objects, "secrets", s.value("name", ""));
    if (!keys) continue;
    for (const auto& [k, v] : *keys) SetEnv(env, prefix + k, v);
  }
}

// Calls fn(mount, volume name, volume, mount path) for each of the
// container's mounts of a volume of the pod at an absolute path.
void ForEachMount(
    const json& pod, const json* sc,
    const std::function<void(const json&, const std::string&, const json&,
                             const std::string&)>& fn) {
  if (sc == nullptr) return;
  std::map<std::string, const json*> volumes;
  for (const auto& v : ArrayAt(ObjectAt(pod, "spec"), "volumes"))
    volumes[v.value("name", "")] = &v;
  for (const auto& m : ArrayAt(*sc, "volumeMounts")) {
    auto it = volumes.find(m.value("name", ""));
    std::string mount_path = m.value("mountPath", "");
    if (it == volumes.end() || mount_path.empty() || mount_path[0] != '/')
      continue;
    fn(m, it->first, *it->second, mount_path);
  }
}

// Whether a volume is files the kubelet writes from the API.
bool HasFiles(const json& volume) {
  for (const char* kind : {"configMap", "secret", "downwardAPI", "projected"})
    if (volume.contains(kind)) return true;
  return false;
}

// The kubelet's words for a ConfigMap or Secret it cannot find.
std::string NotFound(bool secret, const std::string& name) {
  return std::string(secret ? "secret" : "configmap") + " \"" + name +
         "\" not found";
}

// The pod's addresses: all its files need from the kubelet's record.
PodRuntime Addresses(const PodRuntime& rt) {
  PodRuntime where;
  where.pod_ip = rt.pod_ip;
  where.host_ip = rt.host_ip;
  return where;
}

// The read-only directory of a configMap, secret, downwardAPI or projected
// volume, written from the pod as it is when first looked into and at
// each refresh.
std::shared_ptr<sim::Filesystem> FileVolume(const std::string& name,
                                            const PodRuntime& rt,
                                            const std::string& node,
                                            const PodSources& sources) {
  auto dir = std::make_shared<sim::Filesystem>();
  dir->SetReadOnly("/");
  dir->SetLoader([name, where = Addresses(rt), node, sources] {
    sim::Filesystem::Files out;
    auto pod = sources.pod ? sources.pod() : nullptr;
    if (!pod) return out;
    for (const auto& v : ArrayAt(ObjectAt(*pod, "spec"), "volumes")) {
      if (v.value("name", "") != name) continue;
      auto files = VolumeFiles(*pod, where, node, v, sources);
      if (files)
        for (auto& [rel, content] : *files)
          out.emplace_back("/" + rel, std::move(content));
      break;
    }
    return out;
  });
  return dir;
}

}  // namespace

ContainerSetup SetUpContainer(const json& pod, const ContainerRuntime& c,
                              PodRuntime* rtp, const std::string& node,
                              TimePoint now, const PodSources& sources) {
  const ObjectSource& objects = sources.objects;
  const PodRuntime& rt = *rtp;
  ContainerSetup out;
  const json& md = ObjectAt(pod, "metadata");
  const json& spec = ObjectAt(pod, "spec");
  const std::string name = md.value("name", "");
  const std::string ns = md.value("namespace", "default");
  const sim::ImageCatalog& catalog = sim::ImageCatalog::Builtin();
  // image_ref is the name the kubelet normalised when it took the pod.
  const sim::ImageProfile* image =
      catalog.Find(sim::SplitReference(c.image_ref).repository);

  auto& env = out.spec.env;
  env.emplace_back(
      "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  std::string hostname = spec.value("hostname", name);
  env.emplace_back("HOSTNAME", hostname);
  if (image != nullptr)
    for (const auto& [k, v] : image->env) SetEnv(&env, k, v);
  const json* sc = SpecOf(pod, c);
  if (sc != nullptr) {
    AddEnvFrom(*sc, objects, &env);
    for (const auto& e : ArrayAt(*sc, "env")) {
      std::string key = e.value("name", "");
      if (key.empty()) continue;
      if (e.contains("value") && e["value"].is_string()) {
        SetEnv(&env, key, ExpandRefs(e["value"].get<std::string>(), env));
      } else if (const json& fr =
                     ObjectAt(ObjectAt(e, "valueFrom"), "fieldRef");
                 fr.is_object() && !fr.empty()) {
        SetEnv(&env, key, FieldValue(pod, rt, node, fr.value("fieldPath", "")));
      } else if (const json& ref =
                     ObjectAt(ObjectAt(e, "valueFrom"), "configMapKeyRef");
                 !ref.empty()) {
        auto keys = Keys(objects, "configmaps", ref.value("name", ""));
        if (keys && keys->count(ref.value("key", "")))
          SetEnv(&env, key, keys->at(ref.value("key", "")));
      } else if (const json& ref =
                     ObjectAt(ObjectAt(e, "valueFrom"), "secretKeyRef");
                 !ref.empty()) {
        auto keys = Keys(objects, "secrets", ref.value("name", ""));
        if (keys && keys->count(ref.value("key", "")))
          SetEnv(&env, key, keys->at(ref.value("key", "")));
      } else if (!e.contains("valueFrom")) {
        SetEnv(&env, key, "");
      }
    }
  }
  const std::string kube_ip = api::kinds::kKubernetesServiceIp;
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"KUBERNETES_SERVICE_HOST", kube_ip},
           {"KUBERNETES_SERVICE_PORT", "443"},
           {"KUBERNETES_SERVICE_PORT_HTTPS", "443"},
           {"KUBERNETES_PORT", "tcp://" + kube_ip + ":443"},
           {"KUBERNETES_PORT_443_TCP", "tcp://" + kube_ip + ":443"},
           {"KUBERNETES_PORT_443_TCP_PROTO", "tcp"},
           {"KUBERNETES_PORT_443_TCP_PORT", "443"},
           {"KUBERNETES_PORT_443_TCP_ADDR", kube_ip}})
    SetEnv(&env, k, v);
  bool has_home = false;
  for (const auto& kv : env) has_home = has_home || kv.first == "HOME";
  if (!has_home) env.emplace_back("HOME", "/root");

  std::vector<std::string> command, args;
  if (sc != nullptr) {
    for (auto& s : Strings(sc->value("command", json())))
      command.push_back(ExpandRefs(s, env));
    for (auto& s : Strings(sc->value("args", json())))
      args.push_back(ExpandRefs(s, env));
  }
  out.spec.argv = sim::ResolveArgv(image, command, args);
  out.spec.stdin_open = sc != nullptr && sc->value("stdin", false);
  out.spec.hostname = hostname;
  out.spec.ip = rt.pod_ip;
  out.spec.image = image;
  out.spec.start = now;
  out.spec.pid = 1;

  // Volume mounts: which paths hold files the kubelet writes (read-only)
  // and which are directories of their own or of the node; the files come
  // with the container's others (ContainerFiles), when it is first looked
  // into.
  ForEachMount(pod, sc,
               [&](const json& m, const std::string& name, const json& volume,
                   const std::string& mount_path) {
                 const std::string sub = m.value("subPath", "");
                 const std::string under = sub.empty() ? "" : "/" + sub;
                 if (m.value("readOnly", false))
                   out.read_only.push_back(mount_path);
                 if (HasFiles(volume) && !sub.empty()) {
                   out.read_only.push_back(mount_path);  // a copy, made once
                 } else if (HasFiles(volume)) {
                   auto& dir = rtp->file_volumes[name];
                   if (!dir) dir = FileVolume(name, rt, node, sources);
                   out.mounts.push_back({mount_path, dir});
                 } else if (volume.contains("emptyDir")) {
                   auto& shared = rtp->empty_dirs[name];
                   if (!shared) shared = std::make_shared<sim::Filesystem>();
                   if (!under.empty()) shared->MakeDir(under);
                   out.mounts.push_back(
                       {mount_path, shared, under.empty() ? "/" : under});
                 } else if (const json& hp = ObjectAt(volume, "hostPath");
                            !hp.empty() && sources.host) {
                   // The node's directory, made if missing (DirectoryOrCreate).
                   std::string root = sim::Filesystem::Normalize(
                       "/", hp.value("path", "/") + under);
                   sources.host->MakeDir(root);
                   out.mounts.push_back({mount_path, sources.host, root});
                 } else {
                   // A directory of its own (a claim's volume).
                   out.mounts.push_back(
                       {mount_path, std::make_shared<sim::Filesystem>()});
                 }
               });
  return out;
}

sim::Filesystem::Files ContainerFiles(const json& pod,
                                      const ContainerRuntime& c,
                                      const PodRuntime& rt,
                                      const std::string& node,
                                      const PodSources& sources) {
  sim::Filesystem::Files out;
  const json& md = ObjectAt(pod, "metadata");
  const json& spec = ObjectAt(pod, "spec");
  const std::string name = md.value("name", "");
  const std::string ns = md.value("namespace", "default");
  const std::string hostname = spec.value("hostname", name);
  const json* sc = SpecOf(pod, c);
  std::string subdomain = spec.value("subdomain", "");
  std::string fqdn = subdomain.empty() ? hostname
                                       : hostname + "." + subdomain + "." + ns +
                                             ".svc.cluster.local\t" + hostname;
  std::string hosts =
      "# Kubernetes-managed hosts file.\n"
      "127.0.0.1\tlocalhost\n"
      "::1\tlocalhost ip6-localhost ip6-loopback\n"
      "fe00::0\tip6-localnet\n"
      "fe00::0\tip6-mcastprefix\n"
      "fe00::1\tip6-allnodes\n"
      "fe00::2\tip6-allrouters\n" +
      rt.pod_ip + "\t" + fqdn + "\n";
  const json& aliases = ArrayAt(spec, "hostAliases");
  if (!aliases.empty()) {
    hosts += "\n# Entries added by HostAliases.\n";
    for (const auto& a : aliases) {
      std::string line = a.value("ip", "");
      for (const auto& h : Strings(a.value("hostnames", json())))
        line += "\t" + h;
      hosts += line + "\n";
    }
  }
  out.emplace_back("/etc/hosts", hosts);
  out.emplace_back("/etc/hostname", hostname + "\n");
  ForEachMount(pod, sc,
               [&](const json& m, const std::string&, const json& volume,
                   const std::string& mount_path) {
                 std::string sub = m.value("subPath", "");
                 if (sub.empty()) return;  // a directory of its own
                 auto files = VolumeFiles(pod, rt, node, volume, sources);
                 if (!files) return;
                 for (const auto& [rel, content] : *files) {
                   if (rel == sub) {
                     out.emplace_back(mount_path, content);
                   } else if (rel.rfind(sub + "/", 0) == 0) {
                     out.emplace_back(mount_path + rel.substr(sub.size()),
                                      content);
                   }
                 }
               });
  out.emplace_back("/etc/resolv.conf",
                   "search " + ns +
                       ".svc.cluster.local svc.cluster.local "
                       "cluster.local\nnameserver " +
                       std::string(kClusterDnsIp) + "\noptions ndots:5\n");
  return out;
}

void StartContainerProcess(const std::shared_ptr<const json>& pod,
                           ContainerRuntime* c, PodRuntime* rt,
                           const std::string& node, TimePoint now,
                           const PodSources& sources,
                           const ProcessTable& node_processes) {
  ContainerSetup setup = SetUpContainer(*pod, *c, rt, node, now, sources);
  if (node_processes && ObjectAt(*pod, "spec").value("hostPID", false))
    setup.spec.host_processes = node_processes;
  // What the files need, captured small: the pod is read when they are
  // written, not kept.
  ContainerRuntime who;
  who.name = c->name;
  who.init = c->init;
  auto files = [who, where = Addresses(*rt), node, sources] {
    auto now_pod = sources.pod ? sources.pod() : nullptr;
    if (!now_pod) return sim::Filesystem::Files{};
    return ContainerFiles(*now_pod, who, where, node, sources);
  };
  // A memory limit below what the program needs (sim/programs.h).
  int64_t need = 0;
  Result<int64_t> limit = int64_t{0};
  if (const json* sc = SpecOf(*pod, *c)) {
    const json& limits = ObjectAt(ObjectAt(*sc, "resources"), "limits");
    if (auto m = limits.find("memory"); m != limits.end()) {
      limit = ParseValue(*m);
      need = sim::MemoryNeedBytes(setup.spec.image, setup.spec.argv);
    }
  }
  auto container = std::make_shared<sim::Container>(
      std::move(setup.spec), std::move(files), setup.mounts, setup.read_only);
  container->Advance(now);
  if (container->state() == sim::Process::State::kStartError)
    c->start_error = container->error();
  c->oom_killed = false;
  if (limit.ok() && *limit > 0 && need > *limit &&
      container->state() != sim::Process::State::kStartError &&
      container->state() != sim::Process::State::kExited) {
    // The program needs more than its limit: the kernel's OOM killer ends
    // it as soon as it starts.
    container->Stop(137, now);
    c->oom_killed = true;
  }
  c->sim = std::move(container);
}

std::string ContainerConfigError(const json& pod, const ContainerRuntime& c,
                                 const ObjectSource& objects) {
  const json* sc = SpecOf(pod, c);
  if (sc == nullptr || !objects) return "";
  const std::string ns = ObjectAt(pod, "metadata").value("namespace", "");
  // nullopt: fine; else the message.
  auto check = [&](const json& ref, bool secret,
                   const std::string& key) -> std::optional<std::string> {
    if (ref.value("optional", false)) return std::nullopt;
    const std::string name = ref.value("name", "");
    auto obj = objects(secret ? "secrets" : "configmaps", name);
    if (!obj) return NotFound(secret, name);
    if (key.empty() || KeysOf(*obj, secret).count(key)) return std::nullopt;
    return "couldn't find key " + key + " in " +
           (secret ? "Secret " : "ConfigMap ") + ns + "/" + name;
  };
  for (const auto& from : ArrayAt(*sc, "envFrom")) {
    std::optional<std::string> bad;
    if (const json& cm = ObjectAt(from, "configMapRef"); !cm.empty())
      bad = check(cm, false, "");
    else if (const json& sr = ObjectAt(from, "secretRef"); !sr.empty())
      bad = check(sr, true, "");
    if (bad) return *bad;
  }
  for (const auto& e : ArrayAt(*sc, "env")) {
    const json& from = ObjectAt(e, "valueFrom");
    std::optional<std::string> bad;
    if (const json& cm = ObjectAt(from, "configMapKeyRef"); !cm.empty())
      bad = check(cm, false, cm.value("key", ""));
    else if (const json& sr = ObjectAt(from, "secretKeyRef"); !sr.empty())
      bad = check(sr, true, sr.value("key", ""));
    if (bad) return *bad;
  }
  return "";
}

std::string VolumeSetUpError(const json& pod, const ObjectSource& objects,
                             bool root_ca) {
  if (!objects) return "";
  // The message when the source's object is missing, else "".
  auto missing = [&](const json& src, bool secret, const char* name_field) {
    if (src.value("optional", false)) return std::string();
    const std::string name = src.value(name_field, "");
    if (!root_ca && !secret && name == kRootCaConfigMap) return std::string();
    if (objects(secret ? "secrets" : "configmaps", name)) return std::string();
    return NotFound(secret, name);
  };
  for (const auto& v : ArrayAt(ObjectAt(pod, "spec"), "volumes")) {
    std::string bad;
    if (const json& cm = ObjectAt(v, "configMap"); !cm.empty()) {
      bad = missing(cm, false, "name");
    } else if (const json& s = ObjectAt(v, "secret"); !s.empty()) {
      bad = missing(s, true, "secretName");
    } else {
      for (const auto& src : ArrayAt(ObjectAt(v, "projected"), "sources")) {
        if (const json& cm = ObjectAt(src, "configMap"); !cm.empty())
          bad = missing(cm, false, "name");
        else if (const json& s = ObjectAt(src, "secret"); !s.empty())
          bad = missing(s, true, "name");
        if (!bad.empty()) break;
      }
    }
    if (!bad.empty())
      return "MountVolume.SetUp failed for volume \"" + v.value("name", "") +
             "\" : " + bad;
  }
  return "";
}

void RefreshFileVolumes(const PodRuntime& rt) {
  for (const auto& [name, dir] : rt.file_volumes) dir->Reload();
}

bool ProjectsPodMetadata(const json& pod) {
  auto writes_metadata = [](const json& downward) {
    for (const auto& item : ArrayAt(downward, "items")) {
      std::string path =
          ObjectAt(item, "fieldRef").value("fieldPath", std::string());
      if (path.rfind("metadata.labels", 0) == 0 ||
          path.rfind("metadata.annotations", 0) == 0)
        return true;
    }
    return false;
  };
  for (const auto& v : ArrayAt(ObjectAt(pod, "spec"), "volumes")) {
    if (writes_metadata(ObjectAt(v, "downwardAPI"))) return true;
    for (const auto& src : ArrayAt(ObjectAt(v, "projected"), "sources"))
      if (writes_metadata(ObjectAt(src, "downwardAPI"))) return true;
  }
  return false;
}

bool MountsObject(const json& pod, const std::string& plural,
                  const std::string& name) {
  const bool secret = plural == "secrets";
  auto names = [&](const json& src, const char* kind, const char* field) {
    const json& o = ObjectAt(src, kind);
    return !o.empty() && o.value(field, "") == name;
  };
  for (const auto& v : ArrayAt(ObjectAt(pod, "spec"), "volumes")) {
    if (secret ? names(v, "secret", "secretName")
               : names(v, "configMap", "name"))
      return true;
    for (const auto& src : ArrayAt(ObjectAt(v, "projected"), "sources"))
      if (names(src, secret ? "secret" : "configMap", "name")) return true;
  }
  return false;
}

}  // namespace kmock::controllers::lifecycle
