// Serving stored bytes without decoding them. Objects of kinds stored as
// served are written to the store in the served byte layout minus
// metadata.resourceVersion (api/typed_json: kind, apiVersion, metadata, ...
// in Go's field order), so the bytes a client gets are the stored bytes
// with `"resourceVersion":"<revision>"` put back at its place among the
// metadata fields: a LIST of 150,000 pods or a watch event costs a copy,
// not a parse and an encode.
//
// Every function here returns false (or nullopt) when it cannot be sure of
// giving the exact bytes a decode and encode would give (a kind with a
// storage conversion, bytes written in an older layout, metadata fields the
// schema does not order before the revision's place); callers then decode.
// The metadata is read only up to the revision's place: bytes that start in
// the served layout were written by the typed encoder, whose order holds
// for the rest.
//
// Thread safety: pure functions (the metadata field order is computed once).
#ifndef KMOCK_REGISTRY_STORED_JSON_H_
#define KMOCK_REGISTRY_STORED_JSON_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "api/resource.h"

namespace kmock::registry {

// Appends the object served from `stored` at `revision`, exactly as
// EncodeServedJson(DecodeObject(res, stored, revision)) would write it;
// without kind and apiVersion when !with_type (a List's item, as
// AppendListItemJson writes it). False, with *out unchanged, when it cannot.
bool AppendServedFromStored(const api::ResourceInfo& res,
                            std::string_view stored, int64_t revision,
                            bool with_type, std::string* out);

// metadata.labels of stored bytes (null when absent), parsed without the
// rest of the object; nullopt when the bytes cannot be scanned.
std::optional<nlohmann::json> StoredLabels(std::string_view stored);

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_STORED_JSON_H_
