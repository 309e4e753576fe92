// The JSONPath subset of printer columns and selectable fields, as CRDs'
// additionalPrinterColumns use it: `.a.b`, `.a[0].b`, `.a[*].b`,
// `.metadata.labels['app.kubernetes.io/name']`. A path is parsed once and
// then evaluated on many objects.
//
// Thread safety: a JsonPath is immutable after Parse; Evaluate is const and
// safe from any thread.
#ifndef KMOCK_API_JSON_PATH_H_
#define KMOCK_API_JSON_PATH_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace kmock::api {

class JsonPath {
 public:
  // Parses `.a.b[0]...` (a leading `$`, `{` `}` around it and a missing
  // first dot are accepted). 400-class Status on bad syntax.
  static Result<JsonPath> Parse(std::string_view text);

  // Every value the path reaches in obj, in document order.
  std::vector<const nlohmann::json*> Evaluate(const nlohmann::json& obj) const;
  // The first value reached, or null.
  const nlohmann::json* First(const nlohmann::json& obj) const;
  // The top-level member the path starts with ("" for an empty path).
  const std::string& Root() const;

 private:
  struct Step {
    enum Kind { kMember, kIndex, kAll } kind = kMember;
    std::string member;
    long index = 0;
  };
  void Walk(const nlohmann::json& at, size_t step,
            std::vector<const nlohmann::json*>* out) const;

  std::vector<Step> steps_;
  std::string root_;
};

}  // namespace kmock::api

#endif  // KMOCK_API_JSON_PATH_H_
