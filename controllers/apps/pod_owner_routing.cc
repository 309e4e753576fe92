#include "controllers/apps/pod_owner_routing.h"

#include "common/json_view.h"
#include "controllers/apps/object_util.h"
#include "controllers/replicaset_controller.h"
#include "registry/selectors.h"

namespace kmock::controllers::apps {

EventHandlers PodOwnerRouting::Handlers() {
  return EventHandlers{
      .on_add = [this](const json& pod) { OnAdd(pod); },
      .on_update = [this](const json& old_pod,
                          const json& pod) { OnUpdate(old_pod, pod); },
      .on_delete = [this](const json& pod) { OnDelete(pod); },
  };
}

std::optional<std::string> PodOwnerRouting::OwnerKey(const json& pod) const {
  return ControllerOwnerKey(
      pod, kind_, [this](const std::string& k) { return owners_->Get(k); },
      group_);
}

void PodOwnerRouting::EnqueueMatching(const json& pod) {
  const json& labels = ObjectAt(ObjectAt(pod, "metadata"), "labels");
  for (const ObjectPtr& owner :
       owners_->ByIndex(kByNamespaceIndex, NamespaceOf(pod))) {
    auto sel = registry::LabelSelector::FromJson(SelectorJsonOf(*owner));
    if (sel.ok() && !sel->Empty() && sel->Matches(labels)) {
      queue_->Add(KeyOf(*owner));
    }
  }
}

void PodOwnerRouting::OnAdd(const json& pod) {
  if (IsBeingDeleted(pod)) {
    OnDelete(pod);
    return;
  }
  if (auto key = OwnerKey(pod)) {
    expectations_->CreationObserved(*key);
    queue_->Add(*key);
    return;
  }
  if (!ControllerRefOf(pod)) EnqueueMatching(pod);
}

void PodOwnerRouting::OnUpdate(const json& old_pod, const json& pod) {
  auto key = OwnerKey(pod);
  if (key && IsBeingDeleted(pod) && !IsBeingDeleted(old_pod)) {
    expectations_->DeletionObserved(*key, KeyOf(pod));
  }
  auto old_key = OwnerKey(old_pod);
  if (old_key && old_key != key) queue_->Add(*old_key);
  if (key) {
    queue_->Add(*key);
    return;
  }
  if (!ControllerRefOf(pod)) EnqueueMatching(pod);
}

void PodOwnerRouting::OnDelete(const json& pod) {
  auto key = OwnerKey(pod);
  if (!key) return;
  expectations_->DeletionObserved(*key, KeyOf(pod));
  queue_->Add(*key);
}

}  // namespace kmock::controllers::apps
