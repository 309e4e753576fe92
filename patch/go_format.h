// Go-style text for JSON values, so that patch error messages read exactly as
// kube-apiserver's do. The apiserver builds its patch errors with fmt verbs
// over values decoded into Go's interface{} (map[string]interface{},
// []interface{}, string, int64, float64, bool, nil); these helpers print a
// nlohmann::json the same way.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_PATCH_GO_FORMAT_H_
#define KMOCK_PATCH_GO_FORMAT_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/go_quote.h"

namespace kmock::patch {

// fmt's %v: strings bare, maps as "map[k1:v1 k2:v2]" with sorted keys,
// arrays as "[a b]", null as "<nil>", floats in Go's shortest form.
std::string GoValue(const nlohmann::json& value);

// fmt's %s applied to an interface{}: strings bare, anything else in Go's
// "%!s(type=value)" form (e.g. "%!s(int64=5)", "%!s(<nil>)").
std::string GoStringVerb(const nlohmann::json& value);

// reflect.TypeOf(value).String(): "map[string]interface {}", "[]interface {}",
// "string", "int64", "float64", "bool"; null prints as fmt's "%!s(<nil>)".
std::string GoTypeName(const nlohmann::json& value);

// The word encoding/json uses in "cannot unmarshal X into ...": "object",
// "array", "string", "number", "bool" (null never fails to unmarshal).
std::string GoJsonKind(const nlohmann::json& value);

// Go's strconv.Quote (shared with api/ from common/).
using ::kmock::GoQuote;

}  // namespace kmock::patch

#endif  // KMOCK_PATCH_GO_FORMAT_H_
