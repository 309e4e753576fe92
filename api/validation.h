// Metadata and name validation shared by every kind, in kube-apiserver's
// field paths and words (apimachinery's ValidateObjectMeta and the
// util/validation name checks).
//
// The Is* checks return the list of problems with a value (empty = valid);
// the Validate* functions add FieldErrors under the given path.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_API_VALIDATION_H_
#define KMOCK_API_VALIDATION_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/field_errors.h"

namespace kmock::api {

// DNS-1123 subdomain (253 chars, lower case, '-' and '.').
std::vector<std::string> IsDNS1123Subdomain(const std::string& value);
// DNS-1123 label (63 chars, lower case and '-').
// A DNS-1035 label (starts with a letter): Service names and the like.
std::vector<std::string> IsDNS1035Label(const std::string& value);
// A name usable as one path segment: not "." or "..", no '/' or '%'.
std::vector<std::string> IsPathSegmentName(const std::string& value);
std::vector<std::string> IsDNS1123Label(const std::string& value);
// A qualified name: an optional DNS subdomain prefix and '/', then a name of
// at most 63 alphanumerics, '-', '_' or '.' (label keys, finalizers).
std::vector<std::string> IsQualifiedName(const std::string& value);
// A label value: empty, or at most 63 alphanumerics, '-', '_' or '.'.
std::vector<std::string> IsValidLabelValue(const std::string& value);
// An IANA_SVC_NAME port name.
std::vector<std::string> IsValidPortName(const std::string& value);
// 1..65535.
std::vector<std::string> IsValidPortNum(int64_t port);

// Name checks by rule ("subdomain" or "label"). With prefix = true the value
// is a generateName prefix, whose trailing '-' is allowed.
std::vector<std::string> ValidateNameByRule(const std::string& rule,
                                            const std::string& name,
                                            bool prefix);

// Adds "Invalid value" errors at `path` for a DNS-1123 label.
void ValidateDNS1123Label(const std::string& value, const std::string& path,
                          FieldErrors* errs);
void ValidateDNS1123Subdomain(const std::string& value, const std::string& path,
                              FieldErrors* errs);
void ValidateQualifiedName(const std::string& value, const std::string& path,
                           FieldErrors* errs);

// Labels (keys qualified names, values label values) at `path`.
void ValidateLabels(const nlohmann::json& labels, const std::string& path,
                    FieldErrors* errs);
// Annotation keys (case-insensitive qualified names) and the 256 KiB total.
void ValidateAnnotations(const nlohmann::json& annotations,
                         const std::string& path, FieldErrors* errs);
// Each finalizer a qualified name, and not both orphan and foregroundDeletion.
// Names without a '/' must be one of Kubernetes' standard finalizers.
void ValidateFinalizers(const nlohmann::json& finalizers,
                        const std::string& path, FieldErrors* errs);
void ValidateOwnerReferences(const nlohmann::json& refs,
                             const std::string& path, FieldErrors* errs);

// metadata of a new object. `meta` is the metadata object (may be null).
// name_rule is "subdomain" or "label" (ResourceInfo::name_rule).
void ValidateObjectMeta(const nlohmann::json& meta, bool namespaced,
                        const std::string& name_rule, FieldErrors* errs);
// metadata of an update: name, namespace, uid, creationTimestamp,
// deletionTimestamp and deletionGracePeriodSeconds are immutable; no new
// finalizers once deleting; generation never decreases; resourceVersion
// required; labels, annotations and ownerReferences valid.
void ValidateObjectMetaUpdate(const nlohmann::json& new_meta,
                              const nlohmann::json& old_meta,
                              FieldErrors* errs);

// The size of annotations as kube-apiserver counts it (keys + values).
constexpr size_t kTotalAnnotationSizeLimit = 256 * 1024;

}  // namespace kmock::api

#endif  // KMOCK_API_VALIDATION_H_
