#include "api/kinds/namespace.h"

#include "api/kinds/util.h"
#include "api/validation.h"

namespace kmock::api::kinds {

namespace {

const char kNameLabel[] = "kubernetes.io/metadata.name";

void ValidateSpecFinalizers(const json& obj, FieldErrors* errs) {
  const json& finalizers = Array(obj, {"spec", "finalizers"});
  for (size_t i = 0; i < finalizers.size(); ++i) {
    std::string f =
        finalizers[i].is_string() ? finalizers[i].get<std::string>() : "";
    std::string path = "spec.finalizers[" + std::to_string(i) + "]";
    for (const std::string& m : IsQualifiedName(f)) errs->Invalid(path, f, m);
    if (f.find('/') == std::string::npos && f != "kubernetes" &&
        f != "orphan" && f != "foregroundDeletion") {
      errs->Invalid(path, f,
                    "name is neither a standard finalizer name nor is it "
                    "fully qualified");
    }
  }
}

class NamespaceStrategyImpl : public Strategy {
 public:
  void PrepareForCreate(json& obj) const override {
    obj["status"] = {{"phase", "Active"}};
    json& spec = ObjectAt(obj, "spec");
    bool has_kube = false;
    for (const json& f : Array(obj, {"spec", "finalizers"})) {
      if (f == "kubernetes") has_kube = true;
    }
    if (!has_kube) {
      if (!spec.contains("finalizers") || !spec["finalizers"].is_array()) {
        spec["finalizers"] = json::array();
      }
      spec["finalizers"].push_back("kubernetes");
    }
  }

  void PrepareForUpdate(json& obj, const json& old) const override {
    // Finalizers change through namespaces/finalize, status through
    // namespaces/status.
    json& spec = ObjectAt(obj, "spec");
    if (const json* f = Find(old, {"spec", "finalizers"})) {
      spec["finalizers"] = *f;
    } else {
      spec.erase("finalizers");
    }
    if (old.contains("status")) {
      obj["status"] = old["status"];
    } else {
      obj.erase("status");
    }
  }

  void Default(json& obj) const override {
    std::string name = Str(obj, {"metadata", "name"});
    if (!name.empty()) {
      ObjectAt(ObjectAt(obj, "metadata"), "labels")[kNameLabel] = name;
    }
    if (Str(obj, {"status", "phase"}).empty()) {
      ObjectAt(obj, "status")["phase"] = "Active";
    }
  }

  void Validate(const json& obj, FieldErrors* errs) const override {
    ValidateSpecFinalizers(obj, errs);
  }

  void ValidateUpdate(const json& obj, const json& /*old*/,
                      FieldErrors* errs) const override {
    ValidateSpecFinalizers(obj, errs);
  }

  // kube-apiserver refuses to delete the namespaces a cluster needs.
  Status ValidateDelete(const json& obj) const override {
    std::string name = Str(obj, {"metadata", "name"});
    if (name == "default" || name == "kube-system" || name == "kube-public") {
      StatusDetails d;
      d.name = name;
      d.kind = "namespaces";
      return Status(StatusCode::kForbidden,
                    "namespaces \"" + name +
                        "\" is forbidden: this namespace may not be deleted",
                    d);
    }
    return Status::Ok();
  }

  // A deleted namespace is Terminating until its content is gone and the
  // namespace controller has emptied spec.finalizers.
  void PrepareForDelete(json& obj) const override {
    ObjectAt(obj, "status")["phase"] = "Terminating";
  }

  bool DeletionBlocked(const json& obj) const override {
    return !Array(obj, {"spec", "finalizers"}).empty();
  }
};

class NamespaceFinalizeStrategyImpl : public Strategy {
 public:
  void PrepareForUpdate(json& obj, const json& old) const override {
    json result = old;
    json& spec = ObjectAt(result, "spec");
    if (const json* f = Find(obj, {"spec", "finalizers"})) {
      spec["finalizers"] = *f;
    } else {
      spec.erase("finalizers");
    }
    if (const json* rv = Find(obj, {"metadata", "resourceVersion"})) {
      ObjectAt(result, "metadata")["resourceVersion"] = *rv;
    }
    obj = std::move(result);
  }

  void ValidateUpdate(const json& obj, const json& /*old*/,
                      FieldErrors* errs) const override {
    ValidateSpecFinalizers(obj, errs);
  }
};

}  // namespace

std::vector<SelectableField> NamespaceSelectableFields() {
  return {{"status.phase",
           [](const json& n) {
             return Str(n, {"status", "phase"});
           },
           {"status"}}};
}

const Strategy* NamespaceStrategy() {
  static const NamespaceStrategyImpl kStrategy;
  return &kStrategy;
}

const Strategy* NamespaceStatusStrategy() {
  static const StatusStrategy kStrategy(NamespaceStrategy());
  return &kStrategy;
}

const Strategy* NamespaceFinalizeStrategy() {
  static const NamespaceFinalizeStrategyImpl kStrategy;
  return &kStrategy;
}

}  // namespace kmock::api::kinds
