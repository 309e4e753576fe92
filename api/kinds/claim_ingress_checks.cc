#include "api/kinds/claim_ingress_checks.h"

#include <string>
#include <vector>

#include "api/kinds/quantity.h"
#include "api/kinds/util.h"

namespace kmock::api::kinds {

namespace {

using nlohmann::json;

}  // namespace

void DefaultPendingPhase(json& obj) {
  json& status = obj["status"];
  if (!status.is_object()) status = json::object();
  auto phase = status.find("phase");
  if (phase == status.end() || !phase->is_string() || phase->empty())
    status["phase"] = "Pending";
}

void ValidatePersistentVolumeClaim(const json& obj, FieldErrors* errs) {
  static const std::vector<std::string> kModes = {
      "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"};
  const json& modes = Array(obj, {"spec", "accessModes"});
  if (modes.empty()) {
    errs->Required("spec.accessModes", "at least 1 access mode is required");
  }
  for (const json& mode : modes) {
    std::string m = mode.is_string() ? mode.get<std::string>() : "";
    bool known = false;
    for (const std::string& k : kModes) known = known || k == m;
    if (!known) errs->NotSupported("spec.accessModes", m, kModes);
  }
  const json* storage = Find(obj, {"spec", "resources", "requests", "storage"});
  if (storage == nullptr) {
    errs->Required("spec.resources[storage]");
    return;
  }
  long double amount = 0;
  if (ParseQuantity(*storage, &amount) && amount <= 0) {
    errs->Invalid("spec.resources[storage]",
                  storage->is_string() ? *storage : json(storage->dump()),
                  "must be greater than zero");
  }
}

void ValidateIngress(const json& obj, FieldErrors* errs) {
  const json& rules = Array(obj, {"spec", "rules"});
  for (size_t i = 0; i < rules.size(); ++i) {
    const json& paths = Array(rules[i], {"http", "paths"});
    for (size_t j = 0; j < paths.size(); ++j) {
      const std::string at = "spec.rules[" + std::to_string(i) +
                             "].http.paths[" + std::to_string(j) + "].";
      const std::string type = Str(paths[j], {"pathType"});
      const std::string path = Str(paths[j], {"path"});
      if (type.empty()) {
        errs->Required(at + "pathType", "pathType must be specified");
      } else if (type != "Exact" && type != "Prefix" &&
                 type != "ImplementationSpecific") {
        errs->NotSupported(at + "pathType", type,
                           {"Exact", "ImplementationSpecific", "Prefix"});
      } else if (type != "ImplementationSpecific" &&
                 (path.empty() || path[0] != '/')) {
        errs->Invalid(at + "path", path, "must be an absolute path");
      }
    }
  }
}

}  // namespace kmock::api::kinds
