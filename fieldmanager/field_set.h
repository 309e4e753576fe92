// FieldSet: a set of field paths of one object, the unit of ownership in
// server-side apply (what a managedFields entry's fieldsV1 holds).
//
// A path is a sequence of elements written as kube-apiserver writes them in
// fieldsV1: "f:<name>" (a struct field or a map key), "k:{...}" (an item of
// a list keyed by its map keys, a JSON object with sorted keys), "v:<json>"
// (an item of a set list, by value) and "i:<n>" (a list item by index).
// The set is a tree: each node may itself be a member (in fieldsV1 a leaf
// `{}`, or `".": {}` beside the node's children).
//
// Thread safety: a plain value; const methods are safe from many threads.
#ifndef KMOCK_FIELDMANAGER_FIELD_SET_H_
#define KMOCK_FIELDMANAGER_FIELD_SET_H_

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"

namespace kmock::fieldmanager {

using Path = std::vector<std::string>;

class FieldSet {
 public:
  FieldSet() = default;

  // Adds a path (an empty path is ignored: the root is never a member).
  void Insert(const Path& path);
  bool Has(const Path& path) const;
  bool empty() const { return children_.empty(); }
  bool operator==(const FieldSet& other) const = default;

  // Each operation has a copying form and, on a set about to be thrown
  // away (an rvalue), a form that works in place: same result, without
  // copying the set first.
  FieldSet Union(const FieldSet& other) const&;
  FieldSet Union(const FieldSet& other) &&;
  // Members of this set that are not members of other (exact paths).
  FieldSet Difference(const FieldSet& other) const&;
  FieldSet Difference(const FieldSet& other) &&;
  FieldSet Intersection(const FieldSet& other) const;
  // Removes every member of other and everything below it.
  FieldSet RecursiveDifference(const FieldSet& other) const&;
  FieldSet RecursiveDifference(const FieldSet& other) &&;

  // Every member path, in upstream's order: at each level the members
  // first, then the subtrees, each sorted.
  void Iterate(const std::function<void(const Path&)>& fn) const;
  std::vector<Path> Paths() const;

  // The fieldsV1 JSON: {"f:spec":{"f:replicas":{}}}.
  nlohmann::json ToFieldsV1() const;
  static Result<FieldSet> FromFieldsV1(const nlohmann::json& fields);
  // Whether a member of this set is also a member of the set the fieldsV1
  // `fields` holds, read in place (what Difference would take from it).
  bool SharesMemberWith(const nlohmann::json& fields) const;

  // Navigation for typed walks: the subtree under element pe (nullptr if
  // none) and whether pe is itself a member here.
  const FieldSet* Child(const std::string& pe) const;
  bool HasMember(const std::string& pe) const;
  const std::map<std::string, FieldSet>& children() const { return children_; }
  // Marks pe as a member of this node.
  void InsertMember(const std::string& pe) { children_[pe].member_ = true; }
  // Sets the subtree under pe (dropped when empty and not a member).
  void SetChild(const std::string& pe, FieldSet subtree, bool member);

 private:
  static Status ParseInto(const nlohmann::json& j, FieldSet* node);
  void IterateFrom(Path& prefix,
                   const std::function<void(const Path&)>& fn) const;
  // Neither owned itself nor holding anything: dropped from its parent.
  bool Hollow() const { return !member_ && children_.empty(); }
  bool member_ = false;  // this node itself is owned
  std::map<std::string, FieldSet> children_;
};

// The path as kube-apiserver prints it in conflicts:
// .spec.containers[name="nginx"].image, .spec.ports[port=80,protocol="TCP"],
// .metadata.finalizers[="a"].
std::string PathString(const Path& path);

}  // namespace kmock::fieldmanager

#endif  // KMOCK_FIELDMANAGER_FIELD_SET_H_
