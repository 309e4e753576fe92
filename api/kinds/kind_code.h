// The code side of kinds: what a resource entry's `strategy:` name
// (api/resources/*.yaml) stands for. A kind whose entry names no strategy
// gets the generic behaviour (api/generic_strategy.h); an entry here holds
// only what differs: strategies, the allocator, a computed create, storage
// converters and selectable fields whose value is computed.
//
// Thread safety: the table is built once and read-only after; strategies
// are stateless.
#ifndef KMOCK_API_KINDS_KIND_CODE_H_
#define KMOCK_API_KINDS_KIND_CODE_H_

#include <functional>
#include <map>
#include <memory>
#include <string_view>
#include <vector>

#include "api/resource.h"

namespace kmock::api {

struct KindCode {
  // A whole strategy of the kind's own; unset: the generic strategy
  // (generic_strategy.h) with the hooks below.
  const Strategy* strategy = nullptr;
  // Hooks of the generic strategy: kube-apiserver's checks of the kind on
  // create and on update (unset validate_update: `validate` of the new
  // object), and a change made to every written object before its defaults
  // (a Secret's stringData folded into data).
  std::function<void(const json& obj, FieldErrors* errs)> validate;
  std::function<void(const json& obj, const json& old, FieldErrors* errs)>
      validate_update;
  std::function<void(json& obj)> normalize;
  // After the generic create preparation (the uid is set): what the server
  // adds (a Job's generated selector).
  std::function<void(json& obj)> prepare_create;
  // After the generic update preparation: what else the stored object keeps
  // (a signing request's spec).
  std::function<void(json& obj, const json& old)> prepare_update;
  const Strategy* status_strategy = nullptr;  // default: generic status
  // The strategies of subresources written as the kind itself besides
  // status ("finalize", "approval"); each such subresource needs one.
  std::map<std::string, const Strategy*, std::less<>> subresource_strategies;
  // ResourceInfo::stamp_update_times and ::table_row_less.
  std::function<void(json& obj, const json& old, TimePoint now)>
      stamp_update_times;
  std::function<bool(const json& a, const json& b)> table_row_less;
  // ResourceInfo::record_requester.
  std::function<void(json& obj, const UserInfo& user)> record_requester;
  std::function<Result<json>(const json& request, const UserInfo& user)>
      virtual_create;
  // ResourceInfo::virtual_items.
  std::function<std::vector<json>()> virtual_items;
  std::function<std::unique_ptr<ResourceAllocator>(Rng* rng)> make_allocator;
  std::function<json(const json& stored)> from_storage;
  std::function<json(const json& served)> to_storage;
  // Fields whose selector value is computed (each must also be listed in
  // the entry's selectableFields); the others are read at their path.
  std::vector<SelectableField> selectable_fields;
};

// The code named `name`, or null.
const KindCode* FindKindCode(std::string_view name);

}  // namespace kmock::api

#endif  // KMOCK_API_KINDS_KIND_CODE_H_
