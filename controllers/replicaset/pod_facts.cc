#include "controllers/replicaset/pod_facts.h"

#include "common/json_view.h"
#include "controllers/apps/object_util.h"

namespace kmock::controllers::replicaset {

namespace {

bool LabelsInclude(const json& labels, const json* want) {
  if (want == nullptr || !want->is_object()) return true;
  for (const auto& [k, v] : want->items()) {
    if (!labels.is_object()) return false;
    auto it = labels.find(k);
    if (it == labels.end() || *it != v) return false;
  }
  return true;
}

}  // namespace

PodFacts FactsOf(const json& pod, const SetView& set) {
  PodFacts f;
  const json& meta = ObjectAt(pod, "metadata");
  const json& labels = ObjectAt(meta, "labels");
  f.active = apps::IsPodActive(pod);
  f.matches_selector = set.selector != nullptr && !set.selector->Empty() &&
                       set.selector->Matches(labels);
  f.labeled = LabelsInclude(labels, set.template_labels);
  if (const json* ref = apps::ControllerRefOf(pod)) {
    f.has_controller = true;
    auto uid = ref->find("uid");
    f.controlled_here = uid != ref->end() && uid->is_string() &&
                        uid->get_ref<const std::string&>() == set.uid;
  }
  f.ready = apps::IsPodReady(pod);
  if (f.ready) f.ready_since = apps::PodReadyTime(pod);
  return f;
}

std::vector<PodFacts> PodFactsCache::For(const std::string& rs_key,
                                         int64_t generation, const SetView& set,
                                         const std::vector<PodPtr>& pods) {
  PerSet* s;
  {
    std::lock_guard<std::mutex> l(mu_);
    std::unique_ptr<PerSet>& slot = sets_[rs_key];
    if (!slot) slot = std::make_unique<PerSet>();
    s = slot.get();
  }
  // Facts depend on the selector and template labels: a new ReplicaSet
  // under the same name, or a changed spec, starts over.
  if (s->uid != set.uid || s->generation != generation) {
    s->pods.clear();
    s->uid = set.uid;
    s->generation = generation;
  }
  const uint64_t call = ++s->calls;
  std::vector<PodFacts> out;
  out.reserve(pods.size());
  size_t listed = 0;
  for (const PodPtr& p : pods) {
    auto [it, added] = s->pods.try_emplace(p.get());
    Entry& e = it->second;
    if (added) {
      e.pod = p;
      e.facts = FactsOf(*p, set);
    }
    if (e.last_call != call) ++listed;
    e.last_call = call;
    out.push_back(e.facts);
  }
  // Pod objects of earlier calls that are not in this one: replaced by
  // a newer object of the same pod, or no longer the set's.
  if (s->pods.size() > listed) {
    std::erase_if(s->pods, [call](const auto& kv) {
      return kv.second.last_call != call;
    });
  }
  return out;
}

void PodFactsCache::Forget(const std::string& rs_key) {
  std::unique_ptr<PerSet> gone;  // released after the lock
  std::lock_guard<std::mutex> l(mu_);
  auto it = sets_.find(rs_key);
  if (it == sets_.end()) return;
  gone = std::move(it->second);
  sets_.erase(it);
}

}  // namespace kmock::controllers::replicaset
