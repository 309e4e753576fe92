// Reads Kubernetes protobuf request bodies (Content-Type
// application/vnd.kubernetes.protobuf, sent by kubectl 1.32+ typed commands)
// into the JSON the same object would have been sent as, driven only by the
// protobuf field numbers in the schema (api/types/*.yaml).
//
// Wire format: the 4 magic bytes "k8s\0", then a runtime.Unknown message
// {1: typeMeta{1: apiVersion, 2: kind}, 2: raw, 3: contentEncoding,
// 4: contentType}; raw is the object's own message.
//
// JSON produced (what Go's encoding/json writes for the decoded struct):
//  - apiVersion and kind come from the envelope;
//  - nested messages become objects and are always kept, even when empty
//    (Go never omits a struct: `spec: {}`, `resources: {}`); embedded
//    structs (inline fields) are flattened into their parent;
//  - protobuf writers send every non-pointer scalar, so an empty string,
//    a zero number or false is dropped (Go's omitempty), except for fields
//    the schema marks required (Go tags those without omitempty) and for a
//    short list of pointer fields where zero is a real value
//    (DeploymentSpec.replicas, JobSpec.backoffLimit, ...; see
//    KeepsZeroValue);
//  - Time and MicroTime become RFC 3339 strings; the zero time (Go's null)
//    is dropped; Quantity becomes its string ("0" when empty);
//    IntOrString a number or a string; RawExtension and FieldsV1 the JSON
//    they carry (a nested "k8s\0" body is decoded too); bytes are base64;
//  - map entries and list elements are kept as they are, empty or not;
//  - unknown field numbers are skipped, as protobuf does; fields declared
//    `any` without a protobuf shape cannot be read and are skipped too;
//  - invalid UTF-8 in strings becomes U+FFFD, as Go's JSON encoder does.
//
// Errors are 400 BadRequest with kube-apiserver's wording. Nesting deeper
// than kMaxProtobufDepth messages and every length are checked, so any
// input is safe to decode.
//
// Thread safety: pure functions over immutable inputs; safe from any thread.
#ifndef KMOCK_API_PROTOBUF_DECODE_H_
#define KMOCK_API_PROTOBUF_DECODE_H_

#include <nlohmann/json.hpp>
#include <string_view>

#include "api/schema.h"
#include "common/status.h"

namespace kmock::api {

// The prefix of every Kubernetes protobuf body.
inline constexpr std::string_view kProtobufMagic{"k8s\0", 4};

// Messages nested deeper than this are refused.
inline constexpr int kMaxProtobufDepth = 64;

// Decodes a protobuf body. `expected_root` is the type the URL names (for
// the error wording and the kind check); when null, the type is chosen by
// the envelope's apiVersion and kind. With an expected root, a missing
// apiVersion or kind in the envelope defaults to the root's, and an
// envelope of another kind is refused: `Pod in version "v1" cannot be
// handled as a Namespace: ...`.
Result<nlohmann::json> DecodeProtobufObject(std::string_view body,
                                            const Schema& schema,
                                            const Type* expected_root);

// True when a zero value of `field` of `type_name` (short name, such as
// "DeploymentSpec") must survive decoding: Go pointer fields, sent only
// when set, and a few non-omitempty fields the schema does not mark
// required.
bool KeepsZeroValue(std::string_view type_name, std::string_view field);

}  // namespace kmock::api

#endif  // KMOCK_API_PROTOBUF_DECODE_H_
