// The Catalog: served resources, growing while readers read without locks.
#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "api/resource.h"

namespace kmock::api {

namespace {

using KeyViews =
    std::tuple<std::string_view, std::string_view, std::string_view>;

// Orders (group, version, name) keys as views, so that a lookup with
// string_views builds no strings (comparing tuples of different element
// types does not compile everywhere).
struct KeyLess {
  using is_transparent = void;
  template <typename T>
  static KeyViews Views(const T& t) {
    return {std::get<0>(t), std::get<1>(t), std::get<2>(t)};
  }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return Views(a) < Views(b);
  }
};

}  // namespace

struct Catalog::State {
  CatalogView::Items all;
  std::map<std::tuple<std::string, std::string, std::string>,
           const ResourceInfo*, KeyLess>
      by_plural, by_kind;
};

const Strategy* ResourceInfo::UpdateStrategyFor(std::string_view sub) const {
  if (sub.empty()) return strategy;
  if (sub == "status") return status_strategy;
  auto it = subresource_strategies.find(sub);
  return it == subresource_strategies.end() ? nullptr : it->second;
}

bool ResourceInfo::HasVerb(std::string_view verb) const {
  return std::find(verbs.begin(), verbs.end(), verb) != verbs.end();
}

const Subresource* ResourceInfo::FindSubresource(std::string_view name) const {
  for (const Subresource& s : subresources) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

Catalog::Catalog() {
  states_.push_back(std::make_unique<State>());
  state_.store(states_.back().get(), std::memory_order_release);
}

Catalog::~Catalog() = default;

CatalogView Catalog::resources() const {
  return CatalogView(&state_.load(std::memory_order_acquire)->all);
}

const ResourceInfo* Catalog::Find(std::string_view group,
                                  std::string_view version,
                                  std::string_view plural) const {
  const State* s = state_.load(std::memory_order_acquire);
  auto it = s->by_plural.find(std::make_tuple(group, version, plural));
  return it == s->by_plural.end() ? nullptr : it->second;
}

const ResourceInfo* Catalog::FindByKind(std::string_view group,
                                        std::string_view version,
                                        std::string_view kind) const {
  const State* s = state_.load(std::memory_order_acquire);
  auto it = s->by_kind.find(std::make_tuple(group, version, kind));
  return it == s->by_kind.end() ? nullptr : it->second;
}

std::vector<std::pair<std::string, std::string>> Catalog::GroupVersions()
    const {
  std::set<std::pair<std::string, std::string>> seen;
  for (const ResourceInfo* r : resources()) seen.insert({r->group, r->version});
  // std::set orders "" before any group name, then groups by name.
  return {seen.begin(), seen.end()};
}

uint64_t Catalog::generation() const {
  // Each change publishes one more state.
  return state_.load(std::memory_order_acquire)->all.size();
}

Status Catalog::Add(std::unique_ptr<ResourceInfo> info) {
  std::lock_guard<std::mutex> lock(write_mu_);
  const State* cur = state_.load(std::memory_order_relaxed);
  if (cur->by_plural.count(
          std::make_tuple(info->group, info->version, info->plural))) {
    return Status(
        StatusCode::kConflict,
        info->QualifiedName() + " " + info->version + " is already served");
  }
  auto next = std::make_unique<State>(*cur);
  const ResourceInfo* r = info.get();
  next->all.push_back(r);
  next->by_plural.emplace(std::make_tuple(r->group, r->version, r->plural), r);
  // The first resource of a kind answers for it (events.k8s.io and core
  // events are different groups, so no kind is shared within a group).
  next->by_kind.emplace(std::make_tuple(r->group, r->version, r->kind), r);
  owned_.push_back(std::move(info));
  states_.push_back(std::move(next));
  state_.store(states_.back().get(), std::memory_order_release);
  return Status::Ok();
}

}  // namespace kmock::api
