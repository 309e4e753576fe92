#include "sim/image_catalog.h"

#include <yaml-cpp/yaml.h>

#include "sim/image_names.h"

namespace kmock::sim {

extern const char kImagesYaml[];  // sim/images.yaml, generated

namespace {

std::vector<std::string> Strings(const YAML::Node& n) {
  std::vector<std::string> out;
  if (n && n.IsSequence())
    for (const auto& x : n) out.push_back(x.as<std::string>());
  return out;
}

std::string Text(const YAML::Node& n) {
  return n && n.IsScalar() ? n.as<std::string>() : "";
}

ProgramProfile ParseProgram(const YAML::Node& n) {
  ProgramProfile p;
  if (!n || !n.IsMap()) return p;
  p.stdout_text = Text(n["stdout"]);
  p.stderr_text = Text(n["stderr"]);
  if (n["ports"])
    for (const auto& x : n["ports"]) p.ports.push_back(x.as<int>());
  if (n["exit"]) p.exit_code = n["exit"].as<int>();
  p.exec = n["exec"] && n["exec"].as<bool>();
  p.require_env = Strings(n["requireEnv"]);
  p.missing_env = Text(n["missingEnv"]);
  p.pi = n["pi"] && n["pi"].as<bool>();
  p.interpreter = Text(n["interpreter"]);
  p.agnhost = n["agnhost"] && n["agnhost"].as<bool>();
  p.protocol = Text(n["protocol"]);
  return p;
}

}  // namespace

bool ImageProfile::HasTag(const std::string& tag) const {
  for (const auto& t : tags)
    if (t == tag) return true;
  for (const auto& re : tag_patterns)
    if (std::regex_match(tag, re)) return true;
  return false;
}

Result<ImageCatalog> ImageCatalog::Parse(std::string_view yaml) {
  ImageCatalog c;
  try {
    YAML::Node root = YAML::Load(std::string(yaml));
    for (const auto& n : root["images"]) {
      ImageProfile p;
      p.repository = n["repository"].as<std::string>();
      p.tags = Strings(n["tags"]);
      p.version = Text(n["version"]);
      p.entrypoint = Strings(n["entrypoint"]);
      p.cmd = Strings(n["cmd"]);
      p.shell = Text(n["shell"]);
      if (n["memoryMiB"]) p.memory_mib = n["memoryMiB"].as<int>();
      if (n["env"])
        for (const auto& e : n["env"])
          p.env[e.first.as<std::string>()] = e.second.as<std::string>();
      if (n["files"])
        for (const auto& f : n["files"])
          p.files[f.first.as<std::string>()] = f.second.as<std::string>();
      if (n["programs"])
        for (const auto& prog : n["programs"])
          p.programs[prog.first.as<std::string>()] = ParseProgram(prog.second);
      for (const auto& t : p.tags)
        if (!t.empty() && t[0] == '~') p.tag_patterns.emplace_back(t.substr(1));
      c.images_.push_back(std::move(p));
    }
    for (const auto& name : Strings(root["officialImages"]))
      c.official_.insert(name);
  } catch (const std::exception& e) {
    return Status(StatusCode::kInvalid,
                  std::string("image catalog: ") + e.what());
  }
  return c;
}

const ImageCatalog& ImageCatalog::Builtin() {
  static const ImageCatalog* catalog = [] {
    auto c = Parse(kImagesYaml);
    // The compiled-in catalog is checked by the tests; a broken one is a
    // build defect, and an empty catalog keeps every image generic.
    return new ImageCatalog(c.ok() ? std::move(c).value() : ImageCatalog());
  }();
  return *catalog;
}

const ImageProfile* ImageCatalog::Find(const std::string& repository) const {
  for (const auto& p : images_)
    if (p.repository == repository) return &p;
  return nullptr;
}

PullCheck ImageCatalog::CheckPull(const std::string& image) const {
  {
    std::lock_guard<std::mutex> l(cache_mu_);
    auto it = cache_.find(image);
    if (it != cache_.end()) return it->second;
  }
  PullCheck check = Decide(image);
  std::lock_guard<std::mutex> l(cache_mu_);
  if (cache_.size() >= 4096) cache_.clear();  // bounded: names are the user's
  cache_.emplace(image, check);
  return check;
}

PullCheck ImageCatalog::Decide(const std::string& image) const {
  std::string invalid = InvalidReferenceReason(image);
  if (!invalid.empty()) return {PullResult::kInvalidName, invalid};
  std::string normalized = NormalizeImage(image);
  ImageReference ref = SplitReference(normalized);
  std::string prefix = "failed to pull and unpack image \"" + normalized +
                       "\": failed to resolve reference \"" + normalized +
                       "\": ";
  if (!ref.digest.empty()) return {};
  if (const ImageProfile* p = Find(ref.repository)) {
    if (p->HasTag(ref.tag)) return {};
    return {PullResult::kNotFound, "rpc error: code = NotFound desc = " +
                                       prefix + normalized + ": not found"};
  }
  const std::string kLibrary = "docker.io/library/";
  if (ref.repository.rfind(kLibrary, 0) == 0 &&
      !official_.count(ref.repository.substr(kLibrary.size()))) {
    return {PullResult::kAccessDenied,
            "rpc error: code = Unknown desc = " + prefix +
                "pull access denied, repository does not exist or may "
                "require authorization: server message: insufficient_scope: "
                "authorization failed"};
  }
  return {};
}

}  // namespace kmock::sim
