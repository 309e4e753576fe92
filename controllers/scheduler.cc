#include "controllers/scheduler.h"

#include <algorithm>

#include "common/json_view.h"
#include "controllers/scheduling/claim_check.h"
#include "controllers/scheduling/select_node.h"
#include "controllers/storage/volume_binding.h"

namespace kmock::controllers {

namespace {

constexpr char kSchedulerName[] = "default-scheduler";

std::string NodeNameOf(const json& pod) {
  return ObjectAt(pod, "spec").value("nodeName", "");
}

bool IsTerminal(const json& pod) {
  std::string phase = ObjectAt(pod, "status").value("phase", "");
  return phase == "Succeeded" || phase == "Failed";
}

}  // namespace

std::vector<std::string> PodNodeIndex(const json& pod) {
  std::string n = NodeNameOf(pod);
  if (n.empty()) return {};
  return {n};
}

Scheduler::Scheduler(registry::Registry* registry, const Clock* clock, Rng* rng,
                     CoreResources res, Informer* pods, Informer* nodes,
                     SchedulerOptions options)
    : registry_(registry),
      clock_(clock),
      rng_(rng),
      res_(res),
      pods_(pods),
      nodes_(nodes),
      options_(std::move(options)),
      recorder_(
          registry, clock,
          EventSource{kSchedulerName, "",
                      std::string(kSchedulerName) + "-" + options_.host, true},
          options_.event_sink),
      queue_(clock) {
  pods_->AddHandlers(EventHandlers{
      .on_add =
          [this](const json& pod) {
            std::string key = KeyOf(pod);
            {
              std::lock_guard<std::mutex> l(mu_);
              CountLocked(key, &pod);
              if (!NodeNameOf(pod).empty()) assumed_.erase(key);
            }
            if (Wants(pod)) queue_.Add(key);
          },
      .on_update =
          [this](const json& old_pod, const json& pod) {
            std::string key = KeyOf(pod);
            {
              std::lock_guard<std::mutex> l(mu_);
              CountLocked(key, &pod);
              if (!NodeNameOf(pod).empty()) assumed_.erase(key);
            }
            if (Wants(pod)) queue_.Add(key);
            // Room freed on a node: a pod ended or left.
            if (!NodeNameOf(old_pod).empty() && IsTerminal(pod) &&
                !IsTerminal(old_pod)) {
              RequeueUnschedulable();
            }
          },
      .on_delete =
          [this](const json& pod) {
            std::string key = KeyOf(pod);
            {
              std::lock_guard<std::mutex> l(mu_);
              assumed_.erase(key);
              unschedulable_.erase(key);
              last_failure_.erase(key);
              CountLocked(key, nullptr);
            }
            if (!NodeNameOf(pod).empty()) RequeueUnschedulable();
          },
  });
  if (options_.claims != nullptr) {
    auto requeue = [this](const json&) { RequeueUnschedulable(); };
    options_.claims->AddHandlers(
        {requeue, [requeue](const json&, const json& c) { requeue(c); },
         nullptr});
  }
  nodes_->AddHandlers(EventHandlers{
      .on_add =
          [this](const json& node) {
            UpdateNode(node, false);
            RequeueUnschedulable();
          },
      .on_update =
          [this](const json&, const json& node) {
            UpdateNode(node, false);
            RequeueUnschedulable();
          },
      .on_delete = [this](const json& node) { UpdateNode(node, true); },
  });
}

Scheduler::~Scheduler() { Stop(); }

void Scheduler::Start() {
  if (workers_) return;
  workers_ = std::make_unique<WorkerPool>(
      "scheduler", &queue_, 1,
      [this](const std::string& k) { return Sync(k); });
}

void Scheduler::Stop() {
  if (workers_) workers_->Stop();
}

bool Scheduler::Wants(const json& pod) const {
  const json& spec = ObjectAt(pod, "spec");
  std::string sched = spec.value("schedulerName", "");
  if (!sched.empty() && sched != kSchedulerName) return false;
  if (!spec.value("nodeName", "").empty()) return false;
  if (ObjectAt(pod, "metadata").contains("deletionTimestamp")) {
    return false;
  }
  return !IsTerminal(pod);
}

void Scheduler::RequeueUnschedulable() {
  std::set<std::string> keys;
  {
    std::lock_guard<std::mutex> l(mu_);
    keys = unschedulable_;
  }
  for (const auto& k : keys) queue_.Add(k);
}

Status Scheduler::Sync(const std::string& key) {
  ObjectPtr pod = pods_->Get(key);
  if (!pod || !Wants(*pod)) {
    std::lock_guard<std::mutex> l(mu_);
    unschedulable_.erase(key);
    return Status::Ok();
  }
  std::vector<scheduling::NodeState> states;
  size_t start = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (assumed_.count(key)) return Status::Ok();  // bound, cache behind
    // What each node has been assumed to take on top of the cache's sums.
    // A pod is in one or the other: the handler that counts a pod seen
    // bound forgets its assumption under the same lock.
    std::map<std::string, scheduling::Resources> assumed_by_node;
    for (const auto& [k, a] : assumed_) assumed_by_node[a.first] += a.second;
    states.reserve(nodes_by_name_.size());
    for (const auto& [name, info] : nodes_by_name_) {
      scheduling::NodeState st;
      st.info = info;
      if (auto u = node_usage_.find(name); u != node_usage_.end()) {
        st.used = u->second.fit;
        st.used_for_scoring = u->second.score;
      }
      if (auto a = assumed_by_node.find(name); a != assumed_by_node.end()) {
        st.used += a->second;
        st.used_for_scoring += a->second;
      }
      states.push_back(std::move(st));
    }
    start = next_start_;
  }
  const size_t node_count = states.size();
  // A claim that stops the pod everywhere stops it before nodes are tried.
  if (options_.claims != nullptr && scheduling::UsesClaims(*pod)) {
    if (auto refused = CheckClaims(*pod, "", node_count)) return *refused;
  }
  // Bound claims' volumes may live in one zone: the pod goes there.
  json constrained;
  const json* to_place = pod.get();
  if (options_.claims != nullptr && scheduling::UsesClaims(*pod)) {
    json expressions = VolumeNodeExpressions(*pod);
    if (!expressions.empty()) {
      constrained = scheduling::WithRequiredNodeExpressions(*pod, expressions);
      to_place = &constrained;
    }
  }
  scheduling::Decision d =
      scheduling::SelectNode(*to_place, states, rng_, start);
  if (!states.empty()) {
    std::lock_guard<std::mutex> l(mu_);
    next_start_ = (start + d.processed) % states.size();
  }
  const json& md = (*pod)["metadata"];
  std::string ns = md.value("namespace", "");
  std::string name = md.value("name", "");
  if (!d.scheduled) return MarkUnschedulable(*pod, d.message);
  if (options_.claims != nullptr && scheduling::UsesClaims(*pod)) {
    if (auto waiting = CheckClaims(*pod, d.node, node_count)) return *waiting;
  }

  json binding = {
      {"apiVersion", "v1"},
      {"kind", "Binding"},
      {"metadata", {{"name", name}, {"namespace", ns}}},
      {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", d.node}}}};
  if (md.contains("uid")) binding["metadata"]["uid"] = md["uid"];
  registry::WriteOptions wo;
  wo.typed_in_process = true;
  wo.user.name = "system:kube-scheduler";
  wo.field_manager = "kube-scheduler";
  int64_t stamp = recorder_.ReserveStamp();
  {
    // Assumed on the node before the binding is written, as kube-scheduler
    // assumes a pod before it binds: the informer's update of the bound pod
    // (whose handler forgets the assumption) cannot come before this.
    std::lock_guard<std::mutex> l(mu_);
    assumed_[key] = {d.node, scheduling::PodRequestsForScoring(*pod)};
  }
  auto bound = registry_->Bind(ns, name, binding, wo);
  if (!bound.ok()) {
    {
      std::lock_guard<std::mutex> l(mu_);
      assumed_.erase(key);
    }
    // Already bound or gone: nothing left for us to do.
    if (bound.status().code() == StatusCode::kConflict ||
        bound.status().code() == StatusCode::kNotFound) {
      return Status::Ok();
    }
    return bound.status();
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    unschedulable_.erase(key);
    last_failure_.erase(key);
  }
  EventRecord rec{"Normal", "Scheduled",
                  "Successfully assigned " + ns + "/" + name + " to " + d.node,
                  "", "Binding"};
  return recorder_.Record(*pod, rec, stamp);
}

size_t Scheduler::AssumedPods() {
  std::lock_guard<std::mutex> l(mu_);
  return assumed_.size();
}

void Scheduler::CountLocked(const std::string& key, const json* pod) {
  std::string node = pod && !IsTerminal(*pod) ? NodeNameOf(*pod) : "";
  const std::string& uid =
      pod ? StringAt(ObjectAt(*pod, "metadata"), "uid") : std::string();
  auto it = counted_.find(key);
  if (it != counted_.end()) {
    // A pod's requests do not change: the same pod on the same node stays.
    if (it->second.node == node && it->second.uid == uid) return;
    Demand& u = node_usage_[it->second.node];
    u.fit -= it->second.demand.fit;
    u.score -= it->second.demand.score;
    counted_.erase(it);
  }
  if (node.empty()) return;
  Demand d{scheduling::PodRequests(*pod),
           scheduling::PodRequestsForScoring(*pod)};
  Demand& u = node_usage_[node];
  u.fit += d.fit;
  u.score += d.score;
  counted_[key] = Counted{node, uid, d};
}

void Scheduler::UpdateNode(const json& node, bool deleted) {
  std::string name = StringAt(ObjectAt(node, "metadata"), "name");
  std::shared_ptr<const scheduling::NodeInfo> info;
  if (!deleted) {
    info = std::make_shared<const scheduling::NodeInfo>(
        scheduling::MakeNodeInfo(node));
  }
  std::lock_guard<std::mutex> l(mu_);
  if (info) {
    nodes_by_name_[name] = std::move(info);
  } else {
    nodes_by_name_.erase(name);
  }
}

json Scheduler::VolumeNodeExpressions(const json& pod) {
  json out = json::array();
  if (res_.persistentvolumes == nullptr) return out;
  const std::string ns = StringAt(ObjectAt(pod, "metadata"), "namespace");
  for (const json& v : ArrayAt(ObjectAt(pod, "spec"), "volumes")) {
    const std::string& claim_name =
        StringAt(ObjectAt(v, "persistentVolumeClaim"), "claimName");
    if (claim_name.empty()) continue;
    ObjectPtr claim = options_.claims->Get(ns + "/" + claim_name);
    if (claim == nullptr) continue;
    const std::string& volume_name =
        StringAt(ObjectAt(*claim, "spec"), "volumeName");
    if (volume_name.empty()) continue;
    auto volume = registry_->Get(*res_.persistentvolumes, "", volume_name);
    if (!volume.ok()) continue;
    const json& terms =
        ArrayAt(ObjectAt(ObjectAt(ObjectAt(*volume, "spec"), "nodeAffinity"),
                         "required"),
                "nodeSelectorTerms");
    // Volumes of this cluster carry one term; its expressions must hold.
    if (terms.empty()) continue;
    for (const json& e : ArrayAt(terms[0], "matchExpressions"))
      out.push_back(e);
  }
  return out;
}

std::optional<Status> Scheduler::CheckClaims(const json& pod,
                                             const std::string& node,
                                             size_t nodes) {
  const std::string ns = StringAt(ObjectAt(pod, "metadata"), "namespace");
  scheduling::ClaimsVerdict verdict = scheduling::CheckPodClaims(
      pod,
      [&](const std::string& name) -> std::optional<json> {
        ObjectPtr claim = options_.claims->Get(ns + "/" + name);
        if (claim == nullptr) return std::nullopt;
        return *claim;
      },
      [&](const std::string& name) -> std::optional<std::string> {
        if (res_.storageclasses == nullptr) return std::nullopt;
        auto sc = registry_->Get(*res_.storageclasses, "", name);
        if (!sc.ok()) return std::nullopt;
        return (*sc).value("volumeBindingMode", "Immediate");
      });
  if (!verdict.refusal.empty()) {
    return MarkUnschedulable(
        pod, scheduling::PreFilterMessage(nodes, verdict.refusal));
  }
  if (node.empty() || verdict.delayed.empty()) return std::nullopt;
  // Claims that wait for a node learn this one; the pod is bound once the
  // volume controller has bound them (a claim's update brings it back). It
  // waits among the unschedulable pods before the first claim changes, so
  // that no claim update can come before it is there to be requeued.
  {
    std::lock_guard<std::mutex> l(mu_);
    unschedulable_.insert(KeyOf(pod));
  }
  registry::WriteOptions wo;
  wo.typed_in_process = true;
  wo.user.name = "system:kube-scheduler";
  wo.field_manager = "kube-scheduler";
  for (const std::string& name : verdict.delayed) {
    auto annotated = registry_->GuaranteedUpdate(
        *res_.persistentvolumeclaims, ns, name, "",
        [&](json& claim) -> Status {
          json& annotations = claim["metadata"]["annotations"];
          if (annotations.is_object() &&
              annotations.contains(storage::kSelectedNodeAnnotation)) {
            return Status(StatusCode::kAlreadyExists, "node already picked");
          }
          annotations[storage::kSelectedNodeAnnotation] = node;
          return Status::Ok();
        },
        wo);
    if (!annotated.ok() &&
        annotated.status().code() != StatusCode::kAlreadyExists &&
        annotated.status().code() != StatusCode::kNotFound) {
      return annotated.status();
    }
  }
  return Status::Ok();
}

Status Scheduler::MarkUnschedulable(const json& pod,
                                    const std::string& message) {
  std::string key = KeyOf(pod);
  bool new_message;
  {
    std::lock_guard<std::mutex> l(mu_);
    unschedulable_.insert(key);
    new_message = last_failure_[key] != message;
    last_failure_[key] = message;
  }
  const json& md = pod["metadata"];
  std::string now = FormatRfc3339(clock_->Now());
  registry::WriteOptions wo;
  wo.typed_in_process = true;
  wo.user.name = "system:kube-scheduler";
  wo.field_manager = "kube-scheduler";
  std::string uid = md.value("uid", "");
  auto r = registry_->GuaranteedUpdateShared(
      *res_.pods, md.value("namespace", ""), md.value("name", ""), "status",
      [&](json& obj) -> Status {
        if (obj["metadata"].value("uid", "") != uid) {
          return Status(StatusCode::kConflict, "pod was replaced");
        }
        json& status = obj["status"];
        if (!status.is_object()) status = json::object();
        json& conds = status["conditions"];
        if (!conds.is_array()) conds = json::array();
        json cond = {{"type", "PodScheduled"},    {"status", "False"},
                     {"reason", "Unschedulable"}, {"message", message},
                     {"lastProbeTime", nullptr},  {"lastTransitionTime", now}};
        for (auto& c : conds) {
          if (c.value("type", "") != "PodScheduled") continue;
          if (c.value("status", "") == "False" &&
              c.contains("lastTransitionTime")) {
            cond["lastTransitionTime"] = c["lastTransitionTime"];
          }
          c = cond;
          return Status::Ok();
        }
        conds.push_back(cond);
        if (!status.contains("phase")) status["phase"] = "Pending";
        return Status::Ok();
      },
      wo);
  if (!r.ok() && r.status().code() != StatusCode::kNotFound &&
      r.status().code() != StatusCode::kConflict) {
    return r.status();
  }
  if (!new_message) return Status::Ok();
  EventRecord rec{"Warning", "FailedScheduling", message, "", "Scheduling"};
  return recorder_.Record(pod, rec);
}

}  // namespace kmock::controllers
