#include "api/kinds/flowcontrol.h"

#include <cstdint>
#include <string>

#include "common/json_view.h"

namespace kmock::api::kinds {

namespace {

// spec.matchingPrecedence, 1000 (the default) when absent.
int64_t MatchingPrecedence(const nlohmann::json& fs) {
  const nlohmann::json& p = ValueAt(ValueAt(fs, "spec"), "matchingPrecedence");
  return p.is_number_integer() ? p.get<int64_t>() : 1000;
}

constexpr char kStoredApiVersion[] = "flowcontrol.apiserver.k8s.io/v1";

// Renames spec.limited.<from> to <to>, where present.
nlohmann::json RenameLimitedShare(nlohmann::json obj, const char* from,
                                  const char* to) {
  auto spec = obj.find("spec");
  if (spec == obj.end() || !spec->is_object()) return obj;
  auto limited = spec->find("limited");
  if (limited == spec->end() || !limited->is_object()) return obj;
  auto share = limited->find(from);
  if (share == limited->end()) return obj;
  nlohmann::json value = std::move(*share);
  limited->erase(share);
  (*limited)[to] = std::move(value);
  return obj;
}

}  // namespace

bool FlowSchemaPrecedenceLess(const nlohmann::json& a,
                              const nlohmann::json& b) {
  const int64_t pa = MatchingPrecedence(a);
  const int64_t pb = MatchingPrecedence(b);
  if (pa != pb) return pa < pb;
  return StringAt(ValueAt(a, "metadata"), "name") <
         StringAt(ValueAt(b, "metadata"), "name");
}

nlohmann::json FlowcontrolFromStorage(const nlohmann::json& stored,
                                      std::string_view api_version) {
  nlohmann::json served = stored;
  if (served.is_object()) served["apiVersion"] = api_version;
  return served;
}

nlohmann::json FlowcontrolToStorage(const nlohmann::json& served) {
  return FlowcontrolFromStorage(served, kStoredApiVersion);
}

nlohmann::json PriorityLevelV1beta2FromStorage(const nlohmann::json& stored) {
  return RenameLimitedShare(
      FlowcontrolFromStorage(stored, "flowcontrol.apiserver.k8s.io/v1beta2"),
      "nominalConcurrencyShares", "assuredConcurrencyShares");
}

nlohmann::json PriorityLevelV1beta2ToStorage(const nlohmann::json& served) {
  return RenameLimitedShare(FlowcontrolToStorage(served),
                            "assuredConcurrencyShares",
                            "nominalConcurrencyShares");
}

}  // namespace kmock::api::kinds
