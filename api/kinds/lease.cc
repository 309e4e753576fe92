#include "api/kinds/lease.h"

#include "api/kinds/util.h"

namespace kmock::api::kinds {

namespace {

class LeaseStrategyImpl : public Strategy {
 public:
  void Validate(const json& obj, FieldErrors* errs) const override {
    if (const json* d = Find(obj, {"spec", "leaseDurationSeconds"});
        d && d->is_number() && d->get<int64_t>() <= 0) {
      errs->Invalid("spec.leaseDurationSeconds", *d, "must be greater than 0");
    }
    if (const json* t = Find(obj, {"spec", "leaseTransitions"});
        t && t->is_number() && t->get<int64_t>() < 0) {
      errs->Invalid("spec.leaseTransitions", *t,
                    "must be greater than or equal to 0");
    }
    std::string strategy = Str(obj, {"spec", "strategy"});
    if (!strategy.empty() && strategy != "OldestEmulationVersion") {
      errs->NotSupported("spec.strategy", strategy, {"OldestEmulationVersion"});
    }
  }
  void ValidateUpdate(const json& obj, const json& /*old*/,
                      FieldErrors* errs) const override {
    Validate(obj, errs);
  }
};

}  // namespace

const Strategy* LeaseStrategy() {
  static const LeaseStrategyImpl kStrategy;
  return &kStrategy;
}

}  // namespace kmock::api::kinds
