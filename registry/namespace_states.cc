#include "registry/namespace_states.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <vector>

namespace kmock::registry {

using json = nlohmann::json;

NamespaceStates::NamespaceStates(store::Storage* storage,
                                 std::string key_prefix)
    : storage_(storage), prefix_(std::move(key_prefix)) {}

bool NamespaceStates::TerminatingJson(std::string_view value) {
  json ns = json::parse(value, nullptr, false);
  if (!ns.is_object()) return false;
  auto meta = ns.find("metadata");
  if (meta != ns.end() && meta->is_object()) {
    auto ts = meta->find("deletionTimestamp");
    if (ts != meta->end() && ts->is_string()) return true;
  }
  auto status = ns.find("status");
  return status != ns.end() && status->is_object() &&
         status->value("phase", "") == "Terminating";
}

void NamespaceStates::PutLocked(const std::string& name, int64_t revision,
                                State state) {
  Entry& e = known_[name];
  if (e.revision > revision) return;
  e.revision = revision;
  e.state = state;
}

void NamespaceStates::CatchUpLocked() {
  if (watch_) {
    std::vector<store::EventPtr> events;
    Status st = watch_->Next(std::chrono::milliseconds(0), &events);
    for (const store::EventPtr& ev : events) {
      std::string name = ev->kv.key.substr(prefix_.size());
      if (ev->type == store::Event::Type::kDelete) {
        PutLocked(name, ev->revision, State::kAbsent);
      } else {
        PutLocked(name, ev->revision,
                  TerminatingJson(ev->kv.value) ? State::kTerminating
                                                : State::kActive);
      }
    }
    if (st.ok()) return;
    watch_.reset();
  }
  // No watch (first use, or it ended): what was known may have missed
  // events, so start over from reads.
  known_.clear();
  ++watch_generation_;
  auto w = storage_->Watch(prefix_, 0);
  if (w.ok()) watch_ = std::move(*w);
}

Result<NamespaceStates::State> NamespaceStates::Lookup(std::string_view name) {
  const std::string key(name);
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    CatchUpLocked();
    auto it = known_.find(key);
    if (watch_ && it != known_.end()) return it->second.state;
    generation = watch_generation_;
  }
  auto kv = storage_->Get(prefix_ + key);
  if (!kv.ok()) {
    // Absence is not remembered: there is no revision to order it by, and
    // creates into a missing namespace are rare.
    if (kv.status().code() == StatusCode::kNotFound) return State::kAbsent;
    return kv.status();
  }
  State state =
      TerminatingJson(kv->value) ? State::kTerminating : State::kActive;
  std::lock_guard<std::mutex> l(mu_);
  // Only with the watch that was live before this read: any later change
  // reaches the map through it as an event with a higher revision.
  if (watch_ && watch_generation_ == generation)
    PutLocked(key, kv->mod_revision, state);
  return state;
}

}  // namespace kmock::registry
