// The entries of metadata.managedFields, decoded and encoded as
// kube-apiserver does: one entry per manager identity (manager, operation,
// and for Update entries the apiVersion, plus the subresource), each with
// its time and its FieldSet (fieldsType "FieldsV1"). Encoding drops empty
// entries and orders them as upstream: Apply before Update, then by time,
// manager, apiVersion and subresource.
//
// Thread safety: plain values and pure functions.
#ifndef KMOCK_FIELDMANAGER_MANAGED_FIELDS_H_
#define KMOCK_FIELDMANAGER_MANAGED_FIELDS_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "fieldmanager/field_set.h"

namespace kmock::fieldmanager {

struct ManagedEntry {
  std::string manager;
  std::string operation;  // "Apply" or "Update"
  std::string api_version;
  std::string subresource;
  std::string time;  // RFC 3339 as written; "" when the entry has none
  FieldSet fields;

  // Whether two entries belong to the same manager identity (an Apply
  // entry's apiVersion is not part of its identity).
  bool SameIdentity(const ManagedEntry& other) const;
  // The identity as upstream keys it: the entry without time and fields,
  // JSON in Go's field order, e.g. {"manager":"m","operation":"Apply"}.
  std::string Identifier() const;
  // How conflicts name the manager: "m2", "kubectl" using v1,
  // "m" with subresource "status" using apps/v1.
  std::string Printed() const;
};

// Whether a comes before b in the stored list.
bool StoredBefore(const ManagedEntry& a, const ManagedEntry& b);
// One entry as stored, its fieldsV1 given.
nlohmann::json EncodeManagedEntry(const ManagedEntry& e,
                                  nlohmann::json fields_v1);
// The identity and time of a stored entry (fields left empty), or false
// when it is not an object with fieldsType FieldsV1 and a fieldsV1 object.
bool DecodeEntryIdentity(const nlohmann::json& entry, ManagedEntry* out);

// Decodes metadata.managedFields (null or missing: no entries).
Result<std::vector<ManagedEntry>> DecodeManagedFields(
    const nlohmann::json& list);
// The list to store; entries with empty sets are left out.
nlohmann::json EncodeManagedFields(std::vector<ManagedEntry> entries);
// A client clears managedFields by sending exactly [{}].
bool IsResetManagedFields(const nlohmann::json& list);

}  // namespace kmock::fieldmanager

#endif  // KMOCK_FIELDMANAGER_MANAGED_FIELDS_H_
