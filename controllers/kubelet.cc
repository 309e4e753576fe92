#include "controllers/kubelet.h"

#include <algorithm>

#include "common/json_view.h"
#include "controllers/lifecycle/container_setup.h"
#include "controllers/lifecycle/engine.h"
#include "controllers/lifecycle/probes.h"
#include "controllers/replicaset_controller.h"  // kByNamespaceIndex
#include "controllers/scheduler.h"
#include "sim/image_catalog.h"
#include "sim/image_names.h"

namespace kmock::controllers {

namespace {

// The volume manager's retries of a volume it cannot set up: 500 ms,
// doubling to 2 min 2 s.
constexpr int64_t kMountBackoffInitialMs = 500;
constexpr int64_t kMountBackoffMaxMs = 122000;

// What a node's disk holds where pods look through hostPath volumes: its
// name, its operating system, and the kubelet's and the logs' directories.
std::shared_ptr<sim::Filesystem> NodeFiles(const KubeletNodeConfig& cfg) {
  auto fs = std::make_shared<sim::Filesystem>();
  std::string os = cfg.os_image;
  std::string name = os.substr(0, os.find(' '));
  fs->Write("/etc/hostname", cfg.name + "\n");
  fs->Write("/etc/os-release",
            "PRETTY_NAME=\"" + os + "\"\nNAME=\"" + name + "\"\n");
  for (const char* dir : {"/var/log/pods", "/var/log/containers",
                          "/var/lib/kubelet/pods", "/tmp"})
    fs->MakeDir(dir);
  return fs;
}

using lifecycle::Action;
using lifecycle::ContainerRuntime;
using lifecycle::PodRuntime;
using lifecycle::Step;
using sim::DefaultPullPolicy;
using sim::ImageId;
using sim::ImageSizeBytes;
using sim::NormalizeImage;

std::string NodeNameOf(const json& pod) {
  return ObjectAt(pod, "spec").value("nodeName", "");
}

std::string UidOf(const json& obj) {
  return ObjectAt(obj, "metadata").value("uid", "");
}

// Pull times (ms) reported when pulls are instant: plausible figures.
constexpr int64_t kMinPullMs = 700;
constexpr int64_t kPullSpreadMs = 3000;
// Process numbers on a freshly booted node start about here.
constexpr int64_t kFirstPid = 1200;

constexpr char kMirrorAnnotation[] = "kubernetes.io/config.mirror";
// How long a kubelet takes to act on a mirror pod marked for deletion: its
// watch and the static pod's next sync. Acting at once raced kubectl
// delete's wait, whose list could already show the new mirror pod while
// the old one's DELETED event came before its watch.
constexpr auto kMirrorSyncDelay = std::chrono::milliseconds(100);
constexpr char kMirrorRemoval[] = "mirror-removal";

bool IsMirrorPod(const json& pod) {
  return ObjectAt(ObjectAt(pod, "metadata"), "annotations")
      .contains(kMirrorAnnotation);
}

// What a kubelet creates again for a static pod: the pod as first seen,
// without what the server sets (uid, resourceVersion, timestamps, status).
json StaticPodManifest(const json& pod) {
  const json& md = ObjectAt(pod, "metadata");
  json meta = {{"name", md.value("name", "")},
               {"namespace", md.value("namespace", "")}};
  for (const char* f : {"labels", "annotations", "ownerReferences"}) {
    if (md.contains(f)) meta[f] = md[f];
  }
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", std::move(meta)},
          {"spec", ObjectAt(pod, "spec")}};
}

}  // namespace

Result<std::unique_ptr<Kubelets>> Kubelets::Create(
    registry::Registry* registry, const Clock* clock, Rng* rng,
    CoreResources res, Informer* pods, Informer* nodes,
    std::vector<KubeletNodeConfig> nodes_config, KubeletOptions options) {
  std::unique_ptr<Kubelets> k(
      new Kubelets(registry, clock, rng, res, pods, nodes, std::move(options)));
  for (auto& cfg : nodes_config) {
    auto agent = std::make_unique<Agent>();
    KMOCK_ASSIGN_OR_RETURN(agent->ips, IpAllocator::Create(cfg.pod_cidr));
    agent->recorder = std::make_unique<EventRecorder>(
        registry, clock, EventSource{"kubelet", cfg.name, "", false},
        options.event_sink);
    agent->next_pid = kFirstPid + static_cast<int64_t>(rng->Uniform(400));
    for (const auto& img : cfg.preloaded_images) {
      agent->images.insert(NormalizeImage(img));
    }
    agent->host_files = NodeFiles(cfg);
    agent->config = std::move(cfg);
    std::string name = agent->config.name;
    k->agents_[name] = std::move(agent);
  }
  return k;
}

Kubelets::Kubelets(registry::Registry* registry, const Clock* clock, Rng* rng,
                   CoreResources res, Informer* pods, Informer* nodes,
                   KubeletOptions options)
    : registry_(registry),
      clock_(clock),
      rng_(rng),
      res_(res),
      pods_(pods),
      nodes_(nodes),
      options_(std::move(options)),
      queue_(clock) {
  auto enqueue = [this](const json& pod) {
    if (agents_.count(NodeNameOf(pod))) queue_.Add(KeyOf(pod));
  };
  pods_->AddHandlers(EventHandlers{
      .on_add = enqueue,
      .on_update =
          [this, enqueue](const json& old, const json& pod) {
            // Labels or annotations a downwardAPI volume writes out.
            const json& a = ObjectAt(old, "metadata");
            const json& b = ObjectAt(pod, "metadata");
            if ((ObjectAt(a, "labels") != ObjectAt(b, "labels") ||
                 ObjectAt(a, "annotations") != ObjectAt(b, "annotations")) &&
                agents_.count(NodeNameOf(pod)) &&
                lifecycle::ProjectsPodMetadata(pod)) {
              std::lock_guard<std::mutex> l(mu_);
              volume_changes_.emplace(KeyOf(pod), clock_->Now());
            }
            enqueue(pod);
          },
      .on_delete = [this](const json& pod) { queue_.Add(KeyOf(pod)); },
  });
  nodes_->AddHandlers(EventHandlers{
      .on_add =
          [this](const json& node) {
            std::string name = ObjectAt(node, "metadata").value("name", "");
            for (const auto& p : pods_->ByIndex(kPodsByNodeIndex, name)) {
              queue_.Add(KeyOf(*p));
            }
            // Static pods that went while their node was away.
            std::vector<std::string> statics;
            {
              std::lock_guard<std::mutex> l(mu_);
              for (const auto& [key, sp] : static_pods_) {
                if (sp.node == name) statics.push_back(key);
              }
            }
            for (const auto& key : statics) queue_.Add(key);
          },
      .on_update = nullptr,
      .on_delete = nullptr,
  });
  for (auto [informer, plural] : {std::pair{options_.configmaps, "configmaps"},
                                  std::pair{options_.secrets, "secrets"}}) {
    if (informer == nullptr) continue;
    std::string p = plural;
    informer->AddHandlers(EventHandlers{
        .on_add = [this, p](const json& o) { ObjectChanged(o, p); },
        .on_update = [this, p](const json&,
                               const json& o) { ObjectChanged(o, p); },
        .on_delete = [this, p](const json& o) { ObjectChanged(o, p); },
    });
  }
}

void Kubelets::ObjectChanged(const json& obj, const std::string& plural) {
  const json& md = ObjectAt(obj, "metadata");
  const std::string ns = md.value("namespace", "");
  const std::string name = md.value("name", "");
  const TimePoint now = clock_->Now();
  for (const auto& p : pods_->ByIndex(kByNamespaceIndex, ns)) {
    if (!agents_.count(NodeNameOf(*p)) ||
        !lifecycle::MountsObject(*p, plural, name))
      continue;
    std::string key = KeyOf(*p);
    {
      std::lock_guard<std::mutex> l(mu_);
      volume_changes_.emplace(key, now);  // the first change not yet written
    }
    queue_.Add(key);
  }
}

void Kubelets::SyncVolumes(const std::string& key,
                           const lifecycle::PodRuntime& rt, TimePoint now,
                           std::optional<TimePoint>* wake) {
  TimePoint changed;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = volume_changes_.find(key);
    if (it == volume_changes_.end()) return;
    changed = it->second;
  }
  // The pod's periodic syncs: every sync_period from its start.
  const auto period = std::max<std::chrono::nanoseconds>(
      options_.sync_period, std::chrono::milliseconds(1));
  const TimePoint from = rt.start_time == TimePoint{} ? changed : rt.start_time;
  auto n = (changed - from + period - std::chrono::nanoseconds(1)) / period;
  TimePoint due = from + std::max<decltype(n)>(n, 1) * period;
  if (now < due) {
    if (!*wake || due < **wake) *wake = due;
    return;
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = volume_changes_.find(key);
    if (it != volume_changes_.end() && it->second == changed)
      volume_changes_.erase(it);
  }
  lifecycle::RefreshFileVolumes(rt);
}

Kubelets::~Kubelets() { Stop(); }

void Kubelets::Start() {
  if (workers_) return;
  workers_ = std::make_unique<WorkerPool>(
      "kubelet", &queue_, options_.workers,
      [this](const std::string& k) { return Sync(k); });
}

void Kubelets::Stop() {
  if (workers_) workers_->Stop();
}

int64_t Kubelets::NextPid(Agent* agent) {
  // Other processes start between ours: leave small gaps.
  return agent->next_pid.fetch_add(1 + static_cast<int64_t>(rng_->Uniform(40)));
}

PodRuntime Kubelets::NewRuntime(const json& pod, Agent* agent) {
  PodRuntime rt;
  rt.host_ip = agent->config.internal_ip;
  const json& spec = ObjectAt(pod, "spec");
  const json& md = ObjectAt(pod, "metadata");
  rt.pod_ref = md.value("name", "") + "_" + md.value("namespace", "") + "(" +
               md.value("uid", "") + ")";
  const std::string pod_policy = spec.value("restartPolicy", "Always");
  const json& status = ObjectAt(pod, "status");
  // A pod already running (after a restart of kubemock): adopt it.
  bool adopt =
      status.value("phase", "") == "Running" && status.contains("podIP");
  std::map<std::string, json> reported;
  for (const char* f : {"initContainerStatuses", "containerStatuses"}) {
    for (const auto& cs : status.value(f, json::array())) {
      reported[cs.value("name", "")] = cs;
    }
  }
  for (const char* list : {"initContainers", "containers"}) {
    bool init = std::string(list) == "initContainers";
    for (const auto& c : spec.value(list, json::array())) {
      ContainerRuntime cr;
      cr.name = c.value("name", "");
      cr.init = init;
      cr.image = c.value("image", "");
      cr.image_ref = NormalizeImage(cr.image);
      cr.image_id = ImageId(cr.image_ref);
      cr.image_size = ImageSizeBytes(cr.image_ref);
      cr.pull_policy = c.value("imagePullPolicy", DefaultPullPolicy(cr.image));
      cr.pull_ms =
          kMinPullMs + static_cast<int64_t>(rng_->Uniform(kPullSpreadMs));
      cr.container_id = "containerd://" + rng_->Hex(64);
      if (init) {
        cr.sidecar = c.value("restartPolicy", "") == "Always";
        cr.restart_policy = cr.sidecar              ? "Always"
                            : pod_policy == "Never" ? "Never"
                                                    : "OnFailure";
      } else {
        cr.restart_policy = pod_policy;
      }
      cr.probed = lifecycle::WaitsForProbe(c);
      sim::PullCheck pull = sim::ImageCatalog::Builtin().CheckPull(cr.image);
      if (pull.result == sim::PullResult::kInvalidName) {
        cr.pull_reason = "InvalidImageName";
        cr.pull_error = pull.message;
      } else if (pull.result != sim::PullResult::kOk) {
        cr.pull_reason = "ErrImagePull";
        cr.pull_error = pull.message;
      }
      {
        std::lock_guard<std::mutex> l(mu_);
        cr.image_present = agent->images.count(cr.image_ref) > 0;
      }
      auto it = reported.find(cr.name);
      if (adopt && it != reported.end()) {
        const json& cs = it->second;
        if (cs.contains("containerID")) cr.container_id = cs["containerID"];
        const json& state = ObjectAt(cs, "state");
        if (state.contains("running")) {
          cr.step = Step::kRunning;
          ParseRfc3339(state["running"].value("startedAt", ""), &cr.started_at);
          cr.pid = NextPid(agent);
        } else if (state.contains("terminated")) {
          cr.step = Step::kTerminated;
          cr.exit_code = state["terminated"].value("exitCode", 0);
          cr.reason = state["terminated"].value("reason", "Completed");
          ParseRfc3339(state["terminated"].value("startedAt", ""),
                       &cr.started_at);
          ParseRfc3339(state["terminated"].value("finishedAt", ""),
                       &cr.finished_at);
        }
        cr.ready = cs.value("ready", false);
        cr.image_present = true;
      }
      rt.containers.push_back(std::move(cr));
    }
  }
  if (adopt) {
    rt.sandbox = true;
    rt.pod_ip = status.value("podIP", "");
    ParseRfc3339(status.value("startTime", ""), &rt.start_time);
    rt.ready = true;
    if (agent->ips->Contains(rt.pod_ip)) (void)agent->ips->Reserve(rt.pod_ip);
  }
  return rt;
}

void Kubelets::Forget(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  volume_changes_.erase(key);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  auto sp = static_pods_.find(key);
  if (sp != static_pods_.end() && sp->second.mirror) {
    // The static pod runs on without its mirror object.
    sp->second.running = std::move(it->second.rt);
    entries_.erase(it);
    return;
  }
  auto agent = agents_.find(it->second.node);
  if (agent != agents_.end() && !it->second.rt.pod_ip.empty() &&
      it->second.rt.pod_ip != it->second.rt.host_ip) {
    agent->second->ips->Release(it->second.rt.pod_ip);
  }
  entries_.erase(it);
}

void Kubelets::RememberStaticPod(const std::string& key, const json& pod,
                                 const std::string& node) {
  json manifest = StaticPodManifest(pod);
  std::lock_guard<std::mutex> l(mu_);
  StaticPod& sp = static_pods_[key];
  sp.manifest = std::move(manifest);
  sp.node = node;
  sp.mirror = IsMirrorPod(pod);
}

std::optional<PodRuntime> Kubelets::TakeRunning(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = static_pods_.find(key);
  if (it == static_pods_.end() || !it->second.running) return std::nullopt;
  std::optional<PodRuntime> rt = std::move(it->second.running);
  it->second.running.reset();
  return rt;
}

Status Kubelets::RecreateStaticPod(const std::string& key) {
  json pod;
  std::string node;
  bool mirror = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = static_pods_.find(key);
    if (it == static_pods_.end()) return Status::Ok();
    pod = it->second.manifest;
    node = it->second.node;
    mirror = it->second.mirror;
  }
  // Without its node there is no kubelet to make it: it comes back with
  // the node (the nodes' add handler queues it).
  ObjectPtr node_obj = nodes_->Get(node);
  if (!agents_.count(node) || !node_obj) return Status::Ok();
  json& md = pod["metadata"];
  if (md.contains("ownerReferences")) {
    for (json& ref : md["ownerReferences"]) {
      if (ref.value("kind", "") == "Node" && ref.value("name", "") == node) {
        ref["uid"] = UidOf(*node_obj);
      }
    }
  }
  registry::WriteOptions wo;
  wo.typed_in_process = true;
  if (mirror) {
    wo.user.name = "system:node:" + node;
    wo.user.groups = {"system:nodes", "system:authenticated"};
    wo.field_manager = "kubelet";
  } else {
    wo.user.name = "system:serviceaccount:kube-system:daemon-set-controller";
    wo.user.groups = {"system:serviceaccounts",
                      "system:serviceaccounts:kube-system",
                      "system:authenticated"};
    wo.field_manager = "kube-controller-manager";
  }
  std::string ns = md.value("namespace", "");
  auto r = registry_->Create(*res_.pods, ns, std::move(pod), wo);
  // Made meanwhile (the informer had not shown it yet): nothing to do.
  if (!r.ok() && r.status().code() != StatusCode::kAlreadyExists) {
    return r.status();
  }
  return Status::Ok();
}

Status Kubelets::WriteStatus(const json& pod, const PodRuntime& rt) {
  const json& md = pod["metadata"];
  std::string uid = UidOf(pod);
  TimePoint now = clock_->Now();
  registry::WriteOptions wo;
  wo.typed_in_process = true;
  wo.user.name = "system:node:" + NodeNameOf(pod);
  wo.user.groups = {"system:nodes", "system:authenticated"};
  wo.field_manager = "kubelet";
  auto r = registry_->GuaranteedUpdateShared(
      *res_.pods, md.value("namespace", ""), md.value("name", ""), "status",
      [&](json& obj) -> Status {
        if (UidOf(obj) != uid) {
          return Status(StatusCode::kConflict, "pod was replaced");
        }
        obj["status"] = lifecycle::RenderStatus(obj, rt, now);
        return Status::Ok();
      },
      wo);
  if (!r.ok() && r.status().code() == StatusCode::kNotFound)
    return Status::Ok();
  return r.ok() ? Status::Ok() : r.status();
}

Status Kubelets::DeletePod(const json& pod, const std::string& node) {
  const json& md = pod["metadata"];
  registry::DeleteOptions opts;
  opts.grace_period_seconds = 0;
  opts.precondition_uid = UidOf(pod);
  opts.user.name = "system:node:" + node;
  opts.user.groups = {"system:nodes", "system:authenticated"};
  auto r = registry_->Delete(*res_.pods, md.value("namespace", ""),
                             md.value("name", ""), opts);
  if (!r.ok() && r.status().code() != StatusCode::kNotFound &&
      r.status().code() != StatusCode::kConflict) {
    return r.status();
  }
  return Status::Ok();
}

Status Kubelets::Sync(const std::string& key) {
  ObjectPtr pod = pods_->Get(key);
  if (!pod) {
    Forget(key);
    return RecreateStaticPod(key);
  }
  std::string node = NodeNameOf(*pod);
  auto agent_it = agents_.find(node);
  if (agent_it == agents_.end() || !nodes_->Get(node)) return Status::Ok();
  Agent* agent = agent_it->second.get();
  std::string uid = UidOf(*pod);

  const bool is_static = options_.static_pods.count(key) > 0;
  const bool mirror = is_static && IsMirrorPod(*pod);
  const bool deleting = (*pod)["metadata"].contains("deletionTimestamp");

  PodEntry entry;
  bool fresh = false;
  bool adopted = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.uid == uid) {
      entry = it->second;
    } else {
      fresh = true;
    }
  }
  if (fresh) {
    Forget(key);  // a pod of the same name that was replaced
    std::string phase = ObjectAt(*pod, "status").value("phase", "");
    if ((phase == "Succeeded" || phase == "Failed") && !deleting) {
      return Status::Ok();
    }
    entry.uid = uid;
    entry.node = node;
    std::optional<PodRuntime> running;
    if (is_static) {
      RememberStaticPod(key, *pod, node);
      running = TakeRunning(key);
    }
    if (running) {
      // A new mirror object for containers that never stopped.
      entry.rt = std::move(*running);
      adopted = true;
    } else {
      entry.rt = NewRuntime(*pod, agent);
    }
  }
  if (mirror && deleting) {
    // Deleting a mirror pod stops nothing: the kubelet removes the object
    // on its next sync of the static pod and makes it again when it sees
    // it gone.
    const TimePoint now = clock_->Now();
    if (entry.pending_stage != kMirrorRemoval) {
      entry.pending_stage = kMirrorRemoval;
      entry.due = now + kMirrorSyncDelay;
    }
    {
      std::lock_guard<std::mutex> l(mu_);
      entries_[key] = entry;
    }
    if (now < entry.due) {
      queue_.AddAfter(key, entry.due - now);
      return Status::Ok();
    }
    return DeletePod(*pod, node);
  }
  if (adopted) {
    {
      std::lock_guard<std::mutex> l(mu_);
      entries_[key] = entry;
    }
    KMOCK_RETURN_IF_ERROR(WriteStatus(*pod, entry.rt));
  }

  const std::vector<lifecycle::Stage>& stages =
      options_.bootstrap_pods.count(key) ? options_.bootstrap_stages
                                         : options_.stages;
  Status result = Status::Ok();
  bool deleted = false;
  // A container's program ended since the status was last written.
  bool dirty = false;
  std::optional<TimePoint> wake;
  // The view a step ended with, when it looked ahead: the next step's.
  std::optional<lifecycle::View> next_view;
  {
    // Probes see the programs as they are now.
    TimePoint now = clock_->Now();
    SyncVolumes(key, entry.rt, now, &wake);
    if (AdvanceContainers(pod, node, &entry.rt, now, &wake)) dirty = true;
    std::vector<lifecycle::EventSpec> probe_events;
    if (lifecycle::RunDueProbes(*pod, &entry.rt, now, &probe_events, &wake))
      dirty = true;
    for (const auto& ev : probe_events) {
      EventRecord rec{ev.type, ev.reason, ev.message, ev.field_path, ""};
      Status st = agent->recorder->Record(*pod, rec);
      if (!st.ok()) result = st;
    }
  }
  for (int guard = 0; guard < 64; ++guard) {
    // The programs ran just above for the first step; after a step they
    // run again (a container the step started has its first moment).
    if (guard > 0 &&
        AdvanceContainers(pod, node, &entry.rt, clock_->Now(), &wake)) {
      dirty = true;
      next_view.reset();
    }
    lifecycle::View view = next_view ? std::move(*next_view)
                                     : lifecycle::BuildView(*pod, entry.rt);
    next_view.reset();
    const lifecycle::Stage* stage = lifecycle::MatchStage(stages, view);
    if (stage == nullptr) break;
    TimePoint now = clock_->Now();
    if (entry.pending_stage != stage->name) {
      auto delay = lifecycle::StageDelay(*stage, view, rng_);
      entry.pending_stage = stage->name;
      entry.due = now + delay;
      if (stage->action == Action::kImagePulled && delay.count() > 0) {
        int cur = entry.rt.CurrentContainer();
        if (cur >= 0) entry.rt.containers[cur].pull_ms = delay.count();
      }
    }
    if (now < entry.due) {
      queue_.AddAfter(key, entry.due - now);
      break;
    }
    entry.pending_stage.clear();
    if (stage->action == Action::kDelete) {
      result = DeletePod(*pod, node);
      if (result.ok()) deleted = true;
      break;
    }
    if (stage->action == Action::kCreateSandbox &&
        !options_.bootstrap_pods.count(key)) {
      // Volumes are set up before the sandbox: one whose ConfigMap or
      // Secret is missing holds the pod in ContainerCreating, tried again
      // on the volume manager's back-off. (The system's pods, static pods
      // on a real cluster, mount nothing from the API.)
      std::string bad = lifecycle::VolumeSetUpError(*pod, ObjectsOf(*pod),
                                                    options_.root_ca_published);
      if (!bad.empty()) {
        entry.rt.mount_backoff_ms =
            entry.rt.mount_backoff_ms == 0
                ? kMountBackoffInitialMs
                : std::min(entry.rt.mount_backoff_ms * 2, kMountBackoffMaxMs);
        entry.pending_stage = stage->name;
        entry.due = now + std::chrono::milliseconds(entry.rt.mount_backoff_ms);
        if (entry.rt.start_time == TimePoint{}) entry.rt.start_time = now;
        {
          std::lock_guard<std::mutex> l(mu_);
          entries_[key] = entry;
        }
        Status st = agent->recorder->Record(
            *pod, EventRecord{"Warning", "FailedMount", bad, "", ""});
        if (!st.ok()) result = st;
        // The first time, the pod shows its containers waiting to be made
        // (ContainerCreating), as the kubelet's status manager reports.
        if (entry.rt.mount_backoff_ms == kMountBackoffInitialMs) {
          st = WriteStatus(*pod, entry.rt);
          if (!st.ok()) result = st;
        }
        queue_.AddAfter(key, entry.due - now);
        break;
      }
      entry.rt.mount_backoff_ms = 0;
    }
    if (stage->action == Action::kCreateSandbox && entry.rt.pod_ip.empty()) {
      bool host_network = ObjectAt(*pod, "spec").value("hostNetwork", false);
      if (host_network) {
        entry.rt.pod_ip = entry.rt.host_ip;
      } else {
        auto ip = agent->ips->Allocate();
        if (!ip.ok()) {
          result = ip.status();
          break;
        }
        entry.rt.pod_ip = *ip;
      }
    }
    if (stage->action == Action::kCreateContainer) {
      int cur = entry.rt.CurrentContainer();
      if (cur >= 0)
        entry.rt.containers[cur].config_error = lifecycle::ContainerConfigError(
            *pod, entry.rt.containers[cur], ObjectsOf(*pod));
    }
    if (stage->action == Action::kStartContainer) {
      int cur = entry.rt.CurrentContainer();
      if (cur >= 0 && entry.rt.containers[cur].step == Step::kCreated) {
        lifecycle::StartContainerProcess(
            pod, &entry.rt.containers[cur], &entry.rt, node, now,
            SourcesOf(*pod), [this, node] { return NodeProcesses(node); });
        ListenForExit(*pod, entry.rt.containers[cur]);
      }
    }
    auto events = lifecycle::Apply(stage->action, &entry.rt, now);
    for (auto& c : entry.rt.containers) {
      if (c.step == Step::kWaiting && c.sim) {
        c.previous = std::move(c.sim);  // restarted: the instance before
        c.sim.reset();
      }
      if (c.container_id.empty())
        c.container_id = "containerd://" + rng_->Hex(64);
      if (c.step == Step::kRunning && c.pid == 0) c.pid = NextPid(agent);
      if (c.step != Step::kWaiting && c.step != Step::kPulling) {
        std::lock_guard<std::mutex> l(mu_);
        agent->images.insert(c.image_ref);
      }
    }
    {
      // Publish the record before the status, so accessors never lag it.
      std::lock_guard<std::mutex> l(mu_);
      entries_[key] = entry;
    }
    for (const auto& ev : events) {
      EventRecord rec{ev.type, ev.reason, ev.message, ev.field_path, ""};
      Status st = agent->recorder->Record(*pod, rec);
      if (!st.ok()) result = st;
    }
    // Like a real kubelet's status manager, report what a client would see
    // between waits, not every step taken in one instant: the sandbox
    // (ContainerCreating) and the kill are always reported; otherwise only
    // when the next step waits, or there is none. So a container without a
    // readiness probe goes from ContainerCreating straight to 1/1 Running.
    bool report = stage->action == Action::kCreateSandbox ||
                  stage->action == Action::kKill;
    if (!report) {
      next_view = lifecycle::BuildView(*pod, entry.rt);
      const lifecycle::Stage* next = lifecycle::MatchStage(stages, *next_view);
      report = next == nullptr || next->delay.count() > 0 ||
               !next->delay_from.empty() || next->action == Action::kDelete;
    }
    dirty = true;
    if (report) {
      Status st = WriteStatus(*pod, entry.rt);
      if (!st.ok()) {
        result = st;
        break;
      }
      dirty = false;
    }
  }
  if (dirty && !deleted && result.ok()) result = WriteStatus(*pod, entry.rt);
  if (wake && !deleted) {
    TimePoint now = clock_->Now();
    queue_.AddAfter(key,
                    *wake > now ? *wake - now : std::chrono::nanoseconds(0));
  }
  if (deleted) {
    Forget(key);
  } else {
    std::lock_guard<std::mutex> l(mu_);
    entries_[key] = entry;
  }
  return result;
}

lifecycle::ObjectSource Kubelets::ObjectsOf(const json& pod) const {
  std::string ns = ObjectAt(pod, "metadata").value("namespace", "");
  return [this, ns](const std::string& plural,
                    const std::string& name) -> std::shared_ptr<const json> {
    const bool secret = plural == "secrets";
    // The kubelet's watch-based cache; what it has not seen yet (just
    // made), a read of the API.
    if (Informer* cache = secret ? options_.secrets : options_.configmaps)
      if (ObjectPtr seen = cache->Get(ns + "/" + name)) return seen;
    const api::ResourceInfo* r = secret ? res_.secrets : res_.configmaps;
    if (r == nullptr) return nullptr;
    auto obj = registry_->Get(*r, ns, name);
    if (!obj.ok()) return nullptr;
    return std::make_shared<const json>(std::move(obj).value());
  };
}

lifecycle::PodSources Kubelets::SourcesOf(const json& pod) const {
  lifecycle::PodSources out;
  out.objects = ObjectsOf(pod);
  if (options_.issue_token) {
    // The kubelet's TokenRequest: bound to the pod, for the source's
    // audience (the API's when it names none) and lifetime.
    out.token = [this](const json& p,
                       const json& source) -> std::optional<std::string> {
      const json& md = ObjectAt(p, "metadata");
      json spec = {
          {"expirationSeconds", source.value("expirationSeconds", 3600)},
          {"boundObjectRef",
           {{"kind", "Pod"},
            {"apiVersion", "v1"},
            {"name", md.value("name", "")},
            {"uid", md.value("uid", "")}}}};
      std::string audience = source.value("audience", "");
      spec["audiences"] =
          audience.empty() ? json::array() : json::array({audience});
      json request = {{"apiVersion", "authentication.k8s.io/v1"},
                      {"kind", "TokenRequest"},
                      {"spec", std::move(spec)}};
      return options_.issue_token(
          md.value("namespace", ""),
          ObjectAt(p, "spec").value("serviceAccountName", "default"), request);
    };
  }
  out.pod = [pods = pods_, key = KeyOf(pod)] { return pods->Get(key); };
  auto agent = agents_.find(NodeNameOf(pod));
  if (agent != agents_.end()) out.host = agent->second->host_files;
  return out;
}

std::vector<std::pair<int64_t, std::string>> Kubelets::NodeProcesses(
    const std::string& node) const {
  std::vector<std::pair<int64_t, std::string>> out = {
      {1, "/sbin/init"},
      {212, "/lib/systemd/systemd-journald"},
      {689, "/usr/bin/containerd"},
      {731,
       "/usr/bin/kubelet "
       "--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf "
       "--kubeconfig=/etc/kubernetes/kubelet.conf "
       "--config=/var/lib/kubelet/config.yaml "
       "--container-runtime-endpoint=unix:///run/containerd/containerd.sock"}};
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& [key, entry] : entries_) {
    if (entry.node != node) continue;
    bool pause = false;
    for (const auto& c : entry.rt.containers) {
      if (c.step != Step::kRunning || c.pid == 0 || !c.sim) continue;
      if (!pause) {
        out.emplace_back(c.pid - 1, "/pause");  // the sandbox, just before
        pause = true;
      }
      out.emplace_back(c.pid, c.sim->command());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

void Kubelets::ListenForExit(const json& pod, const ContainerRuntime& c) {
  // A program ended by its attached terminal: sync the pod now, not at
  // its next wake-up (a blocked program has none).
  if (c.sim)
    c.sim->SetExitListener([this, key = KeyOf(pod)] { queue_.Add(key); });
}

bool Kubelets::AdvanceContainers(const ObjectPtr& pod, const std::string& node,
                                 PodRuntime* rt, TimePoint now,
                                 std::optional<TimePoint>* wake) {
  if (rt->killed) return false;
  bool ended = false;
  for (auto& c : rt->containers) {
    if (c.step != Step::kRunning) continue;
    if (!c.sim) {
      // Adopted after kubemock restarted: its program starts again.
      lifecycle::StartContainerProcess(
          pod, &c, rt, node, now, SourcesOf(*pod),
          [this, node] { return NodeProcesses(node); });
      ListenForExit(*pod, c);
    }
    c.sim->Advance(now);
    switch (c.sim->state()) {
      case sim::Process::State::kStartError:
        c.step = Step::kTerminated;
        c.exit_code = 128;
        c.reason = "StartError";
        c.message = c.sim->error();
        c.finished_at = now;
        c.ready = false;
        ended = true;
        break;
      case sim::Process::State::kExited:
        c.step = Step::kTerminated;
        c.exit_code = c.sim->exit_code();
        c.reason = c.oom_killed       ? "OOMKilled"
                   : c.exit_code == 0 ? "Completed"
                                      : "Error";
        c.finished_at = std::min(c.sim->exited_at(), now);
        if (c.finished_at < c.started_at) c.finished_at = c.started_at;
        c.ready = false;
        ended = true;
        break;
      case sim::Process::State::kSleeping:
        if (!*wake || c.sim->wake() < **wake) *wake = c.sim->wake();
        break;
      default:
        break;
    }
  }
  return ended;
}

std::shared_ptr<sim::Container> Kubelets::Find(const std::string& ns,
                                               const std::string& pod,
                                               const std::string& pod_uid,
                                               const std::string& container,
                                               bool previous) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = entries_.find(ns + "/" + pod);
  if (it == entries_.end() || it->second.uid != pod_uid) return nullptr;
  for (const auto& c : it->second.rt.containers) {
    if (c.name != container) continue;
    // In CrashLoopBackOff the instance that ended is still the latest one
    // (lastState shows it); between a restart and the new start, the
    // latest is the one before.
    if (previous) return c.step == Step::kBackOff ? c.sim : c.previous;
    return c.sim ? c.sim : c.previous;
  }
  return nullptr;
}

std::optional<int64_t> Kubelets::ContainerPid(
    const std::string& ns, const std::string& pod,
    const std::string& container) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = entries_.find(ns + "/" + pod);
  if (it == entries_.end()) return std::nullopt;
  for (const auto& c : it->second.rt.containers) {
    if (c.name == container && c.step == Step::kRunning) return c.pid;
  }
  return std::nullopt;
}

std::optional<PodRuntime> Kubelets::Runtime(const std::string& ns,
                                            const std::string& pod) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = entries_.find(ns + "/" + pod);
  if (it == entries_.end()) return std::nullopt;
  return it->second.rt;
}

}  // namespace kmock::controllers
