// Encoding a served object in kube-apiserver's byte layout when only the
// object is at hand: its apiVersion and kind choose the schema type (lists
// and Status included), and api/json_encode writes the fields in Go's
// declaration order. Objects of no known kind are written with sorted keys.
//
// Thread safety: pure functions; the kind index is built once, on first use.
#ifndef KMOCK_API_TYPED_JSON_H_
#define KMOCK_API_TYPED_JSON_H_

#include <nlohmann/json.hpp>
#include <string>

#include "api/schema.h"

namespace kmock::api {

// The schema type of an object from its apiVersion and kind; nullptr if
// none (for the compiled-in schema).
const Type* TypeOfObject(const nlohmann::json& object);

// Appends the object's JSON, typed when its kind is known.
void AppendTypedJson(const nlohmann::json& object, std::string* out);
std::string EncodeTypedJson(const nlohmann::json& object);

}  // namespace kmock::api

#endif  // KMOCK_API_TYPED_JSON_H_
