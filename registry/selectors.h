// Label and field selectors: parsing kube's string syntax and matching.
//
// Label selectors (equality- and set-based):
//   "app=web,tier!=db", "env in (prod,qa)", "env notin (dev)", "app", "!app",
//   "replicas>2" (Gt/Lt as kube-apiserver accepts them).
// Field selectors: "spec.nodeName=worker-1,status.phase!=Running" with
// backslash escaping of ',', '=' and '\' in values.
// Errors are 400 BadRequest Status values with kube-apiserver's wording.
//
// Thread safety: immutable after parsing; safe to share between threads.
#ifndef KMOCK_REGISTRY_SELECTORS_H_
#define KMOCK_REGISTRY_SELECTORS_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"

namespace kmock::registry {

class LabelSelector {
 public:
  enum class Op {
    kEquals,
    kNotEquals,
    kIn,
    kNotIn,
    kExists,
    kDoesNotExist,
    kGt,
    kLt
  };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };

  // "" selects everything.
  static Result<LabelSelector> Parse(const std::string& text);
  // From a metav1.LabelSelector object {matchLabels, matchExpressions}.
  // A null/absent selector selects nothing (as kube treats a nil selector
  // for controllers); an empty object selects everything.
  static Result<LabelSelector> FromJson(const nlohmann::json& selector);

  bool Empty() const { return reqs_.empty() && !nothing_; }
  // labels: the object's metadata.labels (null or an object).
  bool Matches(const nlohmann::json& labels) const;
  const std::vector<Requirement>& requirements() const { return reqs_; }
  // The canonical string form, as kubectl shows selectors: "app=web,tier in
  // (a,b)".
  std::string ToString() const;

 private:
  std::vector<Requirement> reqs_;
  bool nothing_ = false;
};

class FieldSelector {
 public:
  struct Requirement {
    std::string field;
    bool equals = true;  // false: !=
    std::string value;
  };

  static Result<FieldSelector> Parse(const std::string& text);

  bool Empty() const { return reqs_.empty(); }
  const std::vector<Requirement>& requirements() const { return reqs_; }
  // value_of(field) gives the object's value of a field (already checked to
  // be selectable).
  bool Matches(
      const std::function<std::string(const std::string&)>& value_of) const;
  // The value required by "field=value" if present (for index lookups).
  const std::string* RequiredValue(const std::string& field) const;

 private:
  std::vector<Requirement> reqs_;
};

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_SELECTORS_H_
