#include "controllers/deployment/revision.h"

#include <algorithm>

#include "common/json_view.h"
#include "controllers/apps/object_util.h"
#include "controllers/deployment/rollout_math.h"

namespace kmock::controllers::deployment {

namespace {

using apps::IntAt;

// Longest revision-history kept, in characters.
constexpr size_t kMaxRevisionHistoryChars = 2000;

std::optional<int64_t> ParseInt(const std::string& s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  size_t start = s[0] == '-' ? 1 : 0;
  if (start == s.size() ||
      s.find_first_not_of("0123456789", start) != std::string::npos) {
    return std::nullopt;
  }
  return std::stoll(s);
}

std::string Annotation(const json& obj, const char* key) {
  return apps::StrAt(obj, {"metadata", "annotations", key});
}

json& Annotations(json* obj) {
  json& a = (*obj)["metadata"]["annotations"];
  if (!a.is_object()) a = json::object();
  return a;
}

bool SkipCopy(const std::string& key) {
  return key == "kubectl.kubernetes.io/last-applied-configuration" ||
         key == kRevisionAnnotation || key == kRevisionHistoryAnnotation ||
         key == kDesiredReplicasAnnotation || key == kMaxReplicasAnnotation ||
         key == "deprecated.deployment.rollback.to";
}

// A template metadata member that does not count when templates are
// compared: the creation time, the pod-template-hash label (labels with
// nothing else), and empty annotations.
bool IgnoredMetadataMember(const std::string& key, const json& value) {
  if (key == "creationTimestamp") return true;
  if (key == "labels" && value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it.key() != kPodTemplateHashLabel) return false;
    }
    return true;
  }
  return key == "annotations" && value.is_object() && value.empty();
}

// Walks the members of an object in key order, skipping those `skip`
// says do not count.
class CountedMembers {
 public:
  using Skip = bool (*)(const std::string&, const json&);
  CountedMembers(const json& obj, Skip skip)
      : it_(obj.begin()), end_(obj.end()), skip_(skip) {
    Settle();
  }
  bool done() const { return it_ == end_; }
  const std::string& key() const { return it_.key(); }
  const json& value() const { return *it_; }
  void Next() {
    ++it_;
    Settle();
  }

 private:
  void Settle() {
    while (it_ != end_ && skip_(it_.key(), *it_)) ++it_;
  }
  json::const_iterator it_, end_;
  Skip skip_;
};

bool SkipHashLabel(const std::string& key, const json&) {
  return key == kPodTemplateHashLabel;
}
bool SkipIgnoredMetadata(const std::string& key, const json& value) {
  return IgnoredMetadataMember(key, value);
}

// Whether two objects have the same counted members with values that
// `same` finds equal.
template <typename Same>
bool SameMembers(const json& a, const json& b, CountedMembers::Skip skip,
                 Same same) {
  CountedMembers ia(a, skip), ib(b, skip);
  for (; !ia.done() && !ib.done(); ia.Next(), ib.Next()) {
    if (ia.key() != ib.key() || !same(ia.key(), ia.value(), ib.value()))
      return false;
  }
  return ia.done() && ib.done();
}

bool SameTemplateMetadata(const json& a, const json& b) {
  return SameMembers(a, b, SkipIgnoredMetadata,
                     [](const std::string& key, const json& x, const json& y) {
                       if (key != "labels" || !x.is_object() || !y.is_object())
                         return x == y;
                       return SameMembers(x, y, SkipHashLabel,
                                          [](const std::string&, const json& u,
                                             const json& v) { return u == v; });
                     });
}

// A template's metadata member counts unless it is an object whose
// members all do not count (Canonical drops it then).
bool SkipEmptyTemplateMetadata(const std::string& key, const json& value) {
  if (key != "metadata" || !value.is_object()) return false;
  CountedMembers counted(value, SkipIgnoredMetadata);
  return counted.done();
}

}  // namespace

int64_t Revision(const json& obj) {
  return ParseInt(Annotation(obj, kRevisionAnnotation)).value_or(0);
}

int64_t MaxRevision(const std::vector<json>& rses) {
  int64_t max = 0;
  for (const auto& rs : rses) max = std::max(max, Revision(rs));
  return max;
}

std::optional<int64_t> DesiredReplicasAnnotation(const json& rs) {
  return ParseInt(Annotation(rs, kDesiredReplicasAnnotation));
}

std::optional<int64_t> MaxReplicasAnnotation(const json& rs) {
  return ParseInt(Annotation(rs, kMaxReplicasAnnotation));
}

bool ReplicasAnnotationsNeedUpdate(const json& rs, int64_t desired,
                                   int64_t max) {
  return Annotation(rs, kDesiredReplicasAnnotation) !=
             std::to_string(desired) ||
         Annotation(rs, kMaxReplicasAnnotation) != std::to_string(max);
}

bool SetReplicasAnnotations(json* rs, int64_t desired, int64_t max) {
  if (!ReplicasAnnotationsNeedUpdate(*rs, desired, max)) return false;
  json& a = Annotations(rs);
  a[kDesiredReplicasAnnotation] = std::to_string(desired);
  a[kMaxReplicasAnnotation] = std::to_string(max);
  return true;
}

bool SetNewReplicaSetAnnotations(const json& d, json* rs,
                                 const std::string& new_revision, bool exists) {
  bool changed = false;
  json& a = Annotations(rs);
  const json& da = ObjectAt(d["metadata"], "annotations");
  if (da.is_object()) {
    for (const auto& [k, v] : da.items()) {
      if (SkipCopy(k)) continue;
      if (!a.contains(k) || a[k] != v) {
        a[k] = v;
        changed = true;
      }
    }
  }
  std::string old_revision = a.value(kRevisionAnnotation, "");
  int64_t old_n = ParseInt(old_revision).value_or(0);
  int64_t new_n = ParseInt(new_revision).value_or(0);
  if (old_n < new_n) {
    a[kRevisionAnnotation] = new_revision;
    changed = true;
    if (!old_revision.empty()) {
      std::string history = a.value(kRevisionHistoryAnnotation, "");
      if (history.empty()) {
        history = old_revision;
      } else {
        history += "," + old_revision;
        // Drop the oldest entries beyond the length limit.
        while (history.size() > kMaxRevisionHistoryChars) {
          size_t comma = history.find(',');
          if (comma == std::string::npos) break;
          history = history.substr(comma + 1);
        }
      }
      a[kRevisionHistoryAnnotation] = history;
    }
  }
  if (!exists) {
    int64_t replicas = Replicas(d);
    if (SetReplicasAnnotations(rs, replicas, replicas + MaxSurge(d))) {
      changed = true;
    }
  }
  return changed;
}

bool SetDeploymentRevision(json* d, const std::string& revision) {
  if (Annotation(*d, kRevisionAnnotation) == revision) return false;
  Annotations(d)[kRevisionAnnotation] = revision;
  return true;
}

bool EqualIgnoreHash(const json& t1, const json& t2) {
  // As if both were compared with creationTimestamp, the hash label and
  // what is left empty by dropping them removed, without copying either.
  static const json kEmpty = json::object();
  const json& a = t1.is_object() ? t1 : kEmpty;
  const json& b = t2.is_object() ? t2 : kEmpty;
  return SameMembers(
      a, b, SkipEmptyTemplateMetadata,
      [](const std::string& key, const json& x, const json& y) {
        if (key != "metadata" || !x.is_object() || !y.is_object())
          return x == y;
        return SameTemplateMetadata(x, y);
      });
}

std::optional<json> FindNewReplicaSet(const json& d,
                                      const std::vector<json>& rses) {
  const json& tmpl = ObjectAt(ObjectAt(d, "spec"), "template");
  const json* oldest = nullptr;
  for (const auto& rs : rses) {
    if (!EqualIgnoreHash(ObjectAt(ObjectAt(rs, "spec"), "template"), tmpl))
      continue;
    if (oldest == nullptr || OlderThan(rs, *oldest)) oldest = &rs;
  }
  if (oldest == nullptr) return std::nullopt;
  return *oldest;
}

std::vector<std::string> HistoryToDelete(const json& d,
                                         const std::vector<json>& old_rses) {
  const json& spec = ObjectAt(d, "spec");
  if (!spec.contains("revisionHistoryLimit") ||
      !spec["revisionHistoryLimit"].is_number()) {
    return {};
  }
  int64_t limit = spec["revisionHistoryLimit"].get<int64_t>();
  std::vector<json> alive;
  for (const auto& rs : old_rses) {
    if (!apps::IsBeingDeleted(rs)) alive.push_back(rs);
  }
  int64_t diff = static_cast<int64_t>(alive.size()) - limit;
  if (diff <= 0) return {};
  std::stable_sort(
      alive.begin(), alive.end(), [](const json& a, const json& b) {
        int64_t ra = Revision(a), rb = Revision(b);
        if (ra != rb) return ra < rb;
        TimePoint ta = apps::CreationTime(a), tb = apps::CreationTime(b);
        if (ta != tb) return ta < tb;
        return apps::NameOf(a) < apps::NameOf(b);
      });
  std::vector<std::string> out;
  for (int64_t i = 0; i < diff; ++i) {
    const json& rs = alive[i];
    if (IntAt(rs, {"status", "replicas"}) != 0 || Replicas(rs) != 0 ||
        IntAt(rs, {"metadata", "generation"}) >
            IntAt(rs, {"status", "observedGeneration"})) {
      continue;
    }
    out.push_back(apps::NameOf(rs));
  }
  return out;
}

}  // namespace kmock::controllers::deployment
