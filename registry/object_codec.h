// How objects map onto store keys and bytes.
//
// Keys follow kube-apiserver's etcd layout: ResourceInfo::key_prefix +
// "<namespace>/<name>" for namespaced kinds, + "<name>" otherwise
// (e.g. "/registry/pods/default/hello", "/registry/minions/worker-1").
// Stored bytes are the object's JSON in its storage form, without
// metadata.resourceVersion: the revision comes from the store's
// mod_revision on every read, as etcd-backed kube-apiserver does. Kinds
// stored as served are written in the served byte layout (api/typed_json),
// so a read can splice the revision in instead of decoding
// (registry/stored_json).
//
// Thread safety: pure functions.
#ifndef KMOCK_REGISTRY_OBJECT_CODEC_H_
#define KMOCK_REGISTRY_OBJECT_CODEC_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource.h"
#include "common/status.h"
#include "registry/selectors.h"
#include "store/storage.h"

namespace kmock::registry {

std::string ObjectKey(const api::ResourceInfo& res, std::string_view ns,
                      std::string_view name);
// The prefix of every key of res in ns ("" = all namespaces).
std::string ObjectPrefix(const api::ResourceInfo& res, std::string_view ns);

// Stored bytes → served object: apiVersion/kind set, resourceVersion =
// revision. with_type=false leaves apiVersion/kind out (list items).
Result<nlohmann::json> DecodeObject(const api::ResourceInfo& res,
                                    std::string_view bytes, int64_t revision,
                                    bool with_type = true);
// Stored bytes → apiVersion, kind and metadata only (resourceVersion =
// revision), what a metadata informer needs (kube-controller-manager's
// garbage collector watches PartialObjectMetadata). Without managedFields,
// as kube-controller-manager's informers strip them: nobody reading
// metadata views needs them, and they are most of a small object's
// metadata. Reads only the metadata member's bytes, and parses those
// without managedFields; kinds stored in another form (from_storage) are
// decoded whole and cut down.
Result<nlohmann::json> DecodeObjectMetadata(const api::ResourceInfo& res,
                                            std::string_view bytes,
                                            int64_t revision);
// Stored bytes → an object holding only the top-level `members` present
// in them (no apiVersion, kind or resourceVersion added; metadata without
// managedFields, which no selector reads): what a selector that reads only
// those members needs (Filter::MembersRead), for a fraction of a whole
// parse. Kinds stored in another form (from_storage) are decoded whole.
Result<nlohmann::json> DecodeObjectMembers(
    const api::ResourceInfo& res, std::string_view bytes, int64_t revision,
    const std::vector<std::string>& members);
// Served object → stored bytes.
std::string EncodeObject(const api::ResourceInfo& res,
                         const nlohmann::json& obj);

// A write's two halves without a copy or a parse in between: EncodeForWrite
// returns obj's stored bytes and leaves obj as it will be served, but for
// its resourceVersion (removed); ServedAfterWrite then gives the object as
// DecodeObject(res, bytes, revision) would, from obj itself when the kind
// is stored as served (no to_storage / from_storage), else by decoding.
// obj must already carry apiVersion and kind.
std::string EncodeForWrite(const api::ResourceInfo& res, nlohmann::json& obj);
Result<nlohmann::json> ServedAfterWrite(const api::ResourceInfo& res,
                                        nlohmann::json obj,
                                        std::string_view bytes,
                                        int64_t revision);

// A resourceVersion as a revision: "" → 0; anything not a decimal number is
// 400 "invalid resource version: resourceVersion: Invalid value: "x": ...".
Result<int64_t> ParseResourceVersion(const std::string& rv);

// The value of a selectable field of obj (metadata.name, metadata.namespace
// or one of res.selectable_fields). REQUIRES: IsSelectableField.
std::string FieldValue(const api::ResourceInfo& res, const nlohmann::json& obj,
                       const std::string& field);
bool IsSelectableField(const api::ResourceInfo& res, const std::string& field);

// Parsed selectors of a list or watch, with 400 errors for bad ones
// ("field label not supported: x").
struct Filter {
  LabelSelector labels;
  FieldSelector fields;
  bool Empty() const { return labels.Empty() && fields.Empty(); }
  bool Matches(const api::ResourceInfo& res, const nlohmann::json& obj) const;
  // The top-level members Matches reads, so that an object holding only
  // those matches the same; nullopt when a field may read any member.
  std::optional<std::vector<std::string>> MembersRead(
      const api::ResourceInfo& res) const;
};
Result<Filter> MakeFilter(const api::ResourceInfo& res,
                          const std::string& label_selector,
                          const std::string& field_selector);

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_OBJECT_CODEC_H_
