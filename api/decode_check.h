// Schema-driven checks the server runs on a decoded request body before it
// hands the object to the registry, with kube-apiserver's wording:
//
//  - wrong JSON types ("json: cannot unmarshal string into Go struct field
//    Container.spec.containers.ports of type []v1.ContainerPort"), always a
//    400 BadRequest;
//  - unknown fields ("spec.containers[0].foo") and keys repeated within one
//    object (which the body reader reports, see BodyFindings), which
//    fieldValidation=Strict turns into a 400 and Warn into one warning each.
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
                                       const Type& root, const Schema& schema);

// The first value whose JSON type does not fit the schema, as Go's decoder
// words it: "json: cannot unmarshal string into Go struct field
// PodSpec.spec.containers of type []v1.Container". nullopt if all fit.
std::optional<std::string> FirstTypeError(const nlohmann::json& obj,
                                          const Type& root,
                                          const Schema& schema);

// Removes the fields UnknownFields reports from *obj and returns their
// paths: what a real server stores of a body decoded without strict
// validation (Go's decoder drops fields its types lack).
std::vector<std::string> PruneUnknownFields(nlohmann::json* obj,
                                            const Type& root,
                                            const Schema& schema);

// kube-apiserver's prefix for decode errors: `Pod in version "v1" cannot be
// handled as a Pod: <detail>`, as a 400 BadRequest Status.
Status DecodeError(const std::string& kind, const std::string& version,
                   const std::string& detail);

// What the reader of a request body saw that the decoded value cannot show:
// a JSON object keeps only the last of repeated keys. Filled in by
// server/negotiation's DecodeBodyWithFindings.
struct BodyFindings {
  // JSON bodies: the paths of keys repeated within one object, each once,
  // in the order their repetitions appear: "spec.replicas",
  // "metadata.labels.app", "spec.containers[0].name".
  std::vector<std::string> duplicate_fields;
  // YAML bodies: go-yaml's strict error for repeated keys, one line per
  // repetition: "yaml: unmarshal errors:\n  line 5: key \"replicas\" already
  // set in map". Empty if none.
  std::string yaml_error;
};

// kube-apiserver's strict decoding findings for a body, worded and ordered
// as it reports them: the YAML error first, then `unknown field "<path>"`
// per unknown field, then `duplicate field "<path>"` per repeated key (a
// key repeated inside an unknown field is not reported, as Go skips unknown
// values). Go lists unknown and duplicate fields in document order; here
// unknown fields come first (sorted), then the duplicates.
std::vector<std::string> StrictDecodingErrors(
    const std::vector<std::string>& unknown, const BodyFindings& findings);

// The 400 for fieldValidation=Strict: `... strict decoding error: unknown
// field "spec.foo", duplicate field "spec.replicas"`, from the messages of
// StrictDecodingErrors. REQUIRES: !errors.empty().
Status StrictDecodingError(const std::string& kind, const std::string& version,
                           const std::vector<std::string>& errors);

// The warnings for fieldValidation=Warn, one per message of
// StrictDecodingErrors (kubectl prints `Warning: unknown field "spec.foo"`);
// a YAML error gives one warning per line: `line 5: key "replicas" already
// set in map`.
std::vector<std::string> StrictDecodingWarnings(
    const std::vector<std::string>& errors);

// The warnings for unknown fields alone: `unknown field "spec.foo"`.
std::vector<std::string> UnknownFieldWarnings(
    const std::vector<std::string>& unknown);

// Runs the checks for a body of the given kind and validation mode
// ("Strict", "Warn" or "Ignore"; empty means Warn). Returns the error Status
// (type errors win over strict findings) or Ok with *warnings filled.
// `findings` (may be null) carries what the body reader saw.
Status CheckBody(const nlohmann::json& obj, const Type& root,
                 const std::string& kind, const std::string& version,
                 const std::string& field_validation,
                 std::vector<std::string>* warnings, const Schema& schema,
                 const BodyFindings* findings = nullptr);

// CheckBody for a body about to be stored: the same checks and answers, and
// on success *obj no longer holds the unknown fields (Warn reports them and
// Ignore drops them silently, as kube-apiserver does). One walk of *obj.
Status CheckAndPruneBody(nlohmann::json* obj, const Type& root,
                         const std::string& kind, const std::string& version,
                         const std::string& field_validation,
                         std::vector<std::string>* warnings,
                         const Schema& schema,
                         const BodyFindings* findings = nullptr);

}  // namespace kmock::api

#endif  // KMOCK_API_DECODE_CHECK_H_
