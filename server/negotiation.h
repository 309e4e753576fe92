// Content negotiation: which format a response takes (from Accept) and how a
// request body is read (from Content-Type).
//
// Responses:
//   application/json, application/*, */*          JSON
//   application/vnd.kubernetes.protobuf            answered with JSON
//   application/yaml                               YAML
//   ...;as=Table;g=meta.k8s.io;v=v1 (or v1beta1)   a metav1 Table
//   (get/list/watch)
//   ...;as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2 (or v2beta1)
//                                                  aggregated discovery (/api,
//                                                  /apis)
// Entries are tried in q order (ties keep their order); the first one we
// can serve wins. Nothing acceptable → 406.
//
// Request bodies: application/json (or no Content-Type), application/yaml
// (converted to JSON), Kubernetes protobuf (decoded by the schema's field
// numbers); anything else → 415. JSON and YAML readers also report keys
// repeated within one object, for fieldValidation (see
// DecodeBodyWithFindings).
// Patch bodies pick the patch type from the Content-Type.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_SERVER_NEGOTIATION_H_
#define KMOCK_SERVER_NEGOTIATION_H_

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/decode_check.h"
#include "api/schema.h"
#include "common/status.h"
#include "registry/registry.h"

namespace kmock::server {

// One entry of an Accept header, lower-cased except parameter values.
struct MediaRange {
  std::string type;                           // "application"
  std::string subtype;                        // "json"
  std::map<std::string, std::string> params;  // without q
  double q = 1.0;
};

// Parses an Accept header; entries sorted by q, descending (stable).
std::vector<MediaRange> ParseAccept(std::string_view accept);

enum class Encoding { kJson, kYaml };

struct OutputFormat {
  Encoding encoding = Encoding::kJson;
  bool table = false;
  std::string table_version = "v1";  // "v1" or "v1beta1" when table
  // The response Content-Type to send.
  std::string ContentType() const;
};

// For resource requests. `allow_table` is true for get, list and watch.
Result<OutputFormat> NegotiateOutput(std::string_view accept, bool allow_table);

enum class DiscoveryFormat { kLegacy, kAggregatedV2, kAggregatedV2Beta1 };

// For GET /api and /apis: v2 if any Accept entry asks for
// APIGroupDiscoveryList v2, else v2beta1 if one asks for it, else legacy.
DiscoveryFormat NegotiateDiscovery(std::string_view accept);

// The bare media type of a Content-Type, lower-cased ("application/json").
std::string MediaType(std::string_view content_type);

// A create/update body as JSON: JSON, YAML, or Kubernetes protobuf (decoded
// by field number from the schema; `expected` is the type the URL names, so
// envelope errors can name it; null picks the type from the envelope).
// kBadRequest on malformed input, kUnsupportedMediaType for other formats.
Result<nlohmann::json> DecodeBody(std::string_view content_type,
                                  std::string_view body,
                                  const api::Type* expected = nullptr);

// A create/update body and what strict field validation needs to know about
// it that the value cannot show (keys repeated within one object; the value
// keeps the last of them, as Go's decoder does).
struct DecodedBody {
  nlohmann::json object;
  api::BodyFindings findings;
};

// DecodeBody, also reporting repeated keys: for JSON their paths
// ("spec.replicas"), for YAML go-yaml's strict error ("yaml: unmarshal
// errors:\n  line 5: key \"replicas\" already set in map"). Protobuf bodies
// cannot repeat a field in a way we report. Hand `findings` to
// api::CheckBody.
Result<DecodedBody> DecodeBodyWithFindings(std::string_view content_type,
                                           std::string_view body,
                                           const api::Type* expected = nullptr);

// Parses JSON text as nlohmann::json::parse does (the last of repeated keys
// wins), also listing repeated keys as in BodyFindings::duplicate_fields.
// kBadRequest with the parser's message on malformed input.
Result<nlohmann::json> ParseJsonFindingDuplicates(
    std::string_view text, std::vector<std::string>* duplicates);

// go-yaml's strict error for the keys repeated in the first document of a
// YAML text (see BodyFindings::yaml_error); empty if none or if the text is
// not valid YAML (YamlToJson reports that).
std::string YamlDuplicateKeyError(std::string_view yaml);

// A body that is not valid JSON, as kube-apiserver's decoder reports it for
// an object of `kind`: 400 "the object provided is unrecognized (must be of
// type Pod): couldn't get version/kind; json parse error: <message in Go's
// words> (<summary of the body>)".
Status UnrecognizedObjectError(std::string_view kind, std::string_view body);

// The patch type of a PATCH request's Content-Type (415 if unknown).
Result<registry::PatchType> PatchTypeOf(std::string_view content_type);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_NEGOTIATION_H_
