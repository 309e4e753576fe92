// Schema-driven checks the server runs on a decoded request body before it
// hands the object to the registry, with kube-apiserver's wording:
//
//  - wrong JSON types ("json: cannot unmarshal string into Go struct field
//    Container.spec.containers.ports of type []v1.ContainerPort"), always a
//    400 BadRequest;
//  - unknown fields ("spec.containers[0].foo"), which fieldValidation=Strict
//    turns into a 400 and Warn into one warning per field.
//
// Subtrees declared `any` or with preserve-unknown-fields are never looked
// into. Thread safety: pure functions over immutable inputs.
#ifndef KMOCK_API_DECODE_CHECK_H_
#define KMOCK_API_DECODE_CHECK_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/schema.h"
#include "common/status.h"

namespace kmock::api {

// Paths of the fields of obj that the schema does not know, such as
// "spec.containers[0].foo" or "metadata.labelz", in a stable order
// (document keys in sorted order, depth first). apiVersion and kind at the
// root are always accepted. Values of the wrong JSON type are skipped (see
// FirstTypeError).
std::vector<std::string> UnknownFields(const nlohmann::json& obj,
                                       const Type& root,
                                       const Schema& schema = Schema::Get());

// The first value whose JSON type does not fit the schema, as Go's decoder
// words it: "json: cannot unmarshal string into Go struct field
// PodSpec.spec.containers of type []v1.Container". nullopt if all fit.
std::optional<std::string> FirstTypeError(const nlohmann::json& obj,
                                          const Type& root,
                                          const Schema& schema = Schema::Get());

// kube-apiserver's prefix for decode errors: `Pod in version "v1" cannot be
// handled as a Pod: <detail>`, as a 400 BadRequest Status.
Status DecodeError(const std::string& kind, const std::string& version,
                   const std::string& detail);

// The 400 for fieldValidation=Strict: `... strict decoding error: unknown
// field "spec.foo", unknown field "spec.bar"`. REQUIRES: !unknown.empty().
Status StrictDecodingError(const std::string& kind, const std::string& version,
                           const std::vector<std::string>& unknown);

// The warnings for fieldValidation=Warn, one per field: `unknown field
// "spec.foo"` (kubectl prints them as `Warning: unknown field "spec.foo"`).
std::vector<std::string> UnknownFieldWarnings(
    const std::vector<std::string>& unknown);

// Runs both checks for a body of the given kind and validation mode
// ("Strict", "Warn" or "Ignore"; empty means Warn). Returns the error Status
// (type errors win over unknown fields) or Ok with *warnings filled.
Status CheckBody(const nlohmann::json& obj, const Type& root,
                 const std::string& kind, const std::string& version,
                 const std::string& field_validation,
                 std::vector<std::string>* warnings,
                 const Schema& schema = Schema::Get());

}  // namespace kmock::api

#endif  // KMOCK_API_DECODE_CHECK_H_
