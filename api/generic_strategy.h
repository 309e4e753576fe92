// The behaviour every kind gets unless its code says otherwise, driven by
// its resource entry and schema: a kind with a status subresource takes no
// status on create and keeps the stored status on a main-resource write; a
// kind that keeps a generation starts it at 1 and bumps it when anything but
// metadata and status changes; constant field defaults come from the
// schema's `default:` values; the kind code's hooks (kind_code.h) add its
// checks and its normalization.
//
// Thread safety: stateless after construction; safe from any thread.
#ifndef KMOCK_API_GENERIC_STRATEGY_H_
#define KMOCK_API_GENERIC_STRATEGY_H_

#include "api/kinds/kind_code.h"
#include "api/resource.h"
#include "api/schema.h"

namespace kmock::api {

// Fills in the schema's constant defaults of `type` in obj (absent fields
// only), through nested structs, lists and maps. Cheap when the type
// reaches no defaults.
void ApplySchemaDefaults(const Schema& schema, const Type& type, json& obj);

class GenericStrategy : public Strategy {
 public:
  // `code` may be null (no hooks).
  GenericStrategy(const Schema* schema, const Type* type, bool has_status,
                  bool keeps_generation, const KindCode* code = nullptr)
      : schema_(schema),
        type_(type),
        has_status_(has_status),
        keeps_generation_(keeps_generation),
        code_(code) {}

  void PrepareForCreate(json& obj) const override;
  void PrepareForUpdate(json& obj, const json& old) const override;
  void Default(json& obj) const override;
  void Validate(const json& obj, FieldErrors* errs) const override;
  void ValidateUpdate(const json& obj, const json& old,
                      FieldErrors* errs) const override;

 private:
  const Schema* schema_;
  const Type* type_;  // may be null (then no defaults)
  bool has_status_;
  bool keeps_generation_;
  const KindCode* code_;
};

// Bumps metadata.generation of obj past old's when anything but metadata and
// status differs, else keeps old's: what spec-carrying kinds do on update.
void BumpGenerationOnSpecChange(json& obj, const json& old);

}  // namespace kmock::api

#endif  // KMOCK_API_GENERIC_STRATEGY_H_
