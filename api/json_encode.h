// JSON output in kube-apiserver's byte layout.
//
// kube-apiserver encodes typed objects with Go's encoding/json, so its bytes
// differ from nlohmann::json::dump() (which sorts every object's keys):
//
//  - struct fields come in Go declaration order, which our schema keeps as
//    the order of a Type's fields (api/types/*.yaml): "kind", "apiVersion",
//    "metadata", "spec", "status"; fields the schema does not know follow
//    the known ones, sorted;
//  - map keys (labels, annotations, nodeSelector, ...) and untyped subtrees
//    (`any`, unknown kinds) are sorted bytewise, as Go sorts map keys;
//  - strings are escaped HTML-safe: <, > and & as \u003c, \u003e, \u0026,
//    U+2028 and U+2029 as \u2028 and \u2029, invalid UTF-8 as \ufffd, other
//    control characters as \n, \r, \t, \b, \f or \u00XX;
//  - integers as decimal; doubles as Go prints a float64 (the shortest text
//    that reads back the same; exponent form below 1e-6 and from 1e21 on,
//    as in 1e-7 and 1e+21); NaN and infinities, which Go refuses, as null;
//  - compact, no spaces, no trailing newline.
//
// Encoding is on the hot path of every GET, LIST and watch event: it appends
// into one string and builds the per-Type field order once per schema
// (kept with the schema: Schema::EncodePlans).
//
// Thread safety: pure functions over immutable inputs; safe from any thread.
#ifndef KMOCK_API_JSON_ENCODE_H_
#define KMOCK_API_JSON_ENCODE_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "api/schema.h"

namespace kmock::api {

// Appends `value` encoded as the schema type `type` says (a Pod as
// io.k8s.api.core.v1.Pod, a PodList as ...PodList). A value that does not
// fit the type (a string where an object belongs) is written as it is.
void AppendObjectJson(const nlohmann::json& value, const Type& type,
                      std::string* out, const Schema& schema);

// The same, into a new string.
std::string EncodeObjectJson(const nlohmann::json& value, const Type& type,
                             const Schema& schema);

// Appends `value` with every object's keys sorted, with the same escaping
// and number format: for untyped bodies and kinds without a schema.
void AppendJson(const nlohmann::json& value, std::string* out);

// The same, into a new string.
std::string EncodeJson(const nlohmann::json& value);

// Appends `text` as a quoted JSON string, escaped as above.
void AppendJsonString(std::string_view text, std::string* out);

// Appends a float64 as Go's encoding/json prints it.
void AppendGoFloat(double value, std::string* out);

}  // namespace kmock::api

#endif  // KMOCK_API_JSON_ENCODE_H_
