// Fuzz target: label and field selectors, as they arrive in the
// labelSelector and fieldSelector query parameters and in the selector of
// a Deployment or ReplicaSet. The input is
//
//   <label selector>
//   <field selector>
//   <metav1.LabelSelector as JSON, optional>
//
// Beyond not crashing, the canonical form of a parsed label selector must
// parse again to the same canonical form (kubectl shows that form and
// controllers store it).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "registry/object_codec.h"
#include "registry/selectors.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using namespace kmock;  // NOLINT(build/namespaces): a test entry point

std::string NextLine(std::string_view* text) {
  size_t nl = text->find('\n');
  std::string line(text->substr(0, nl));
  text->remove_prefix(nl == std::string_view::npos ? text->size() : nl + 1);
  return line;
}

void CheckRoundTrip(const registry::LabelSelector& sel) {
  std::string canonical = sel.ToString();
  auto again = registry::LabelSelector::Parse(canonical);
  if (!again.ok() || again->ToString() != canonical) {
    std::fprintf(stderr,
                 "label selector canonical form %s does not reparse: %s\n",
                 canonical.c_str(),
                 again.ok() ? again->ToString().c_str()
                            : again.status().message().c_str());
    std::abort();
  }
}

void MatchLiveObjects(const registry::LabelSelector& sel) {
  for (const char* plural : {"pods", "deployments", "nodes"}) {
    const nlohmann::json& meta = fuzz::LiveObject(plural).object["metadata"];
    (void)sel.Matches(meta.contains("labels") ? meta["labels"]
                                              : nlohmann::json());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::AsText(data, size);
  std::string labels = NextLine(&text);
  std::string fields = NextLine(&text);

  if (auto sel = registry::LabelSelector::Parse(labels); sel.ok()) {
    MatchLiveObjects(*sel);
    CheckRoundTrip(*sel);
  }
  if (auto sel = registry::FieldSelector::Parse(fields); sel.ok()) {
    (void)sel->Matches([](const std::string&) { return std::string("x"); });
    (void)sel->RequiredValue("spec.nodeName");
  }
  for (const char* plural : {"pods", "nodes"}) {
    const fuzz::Live& live = fuzz::LiveObject(plural);
    auto filter = registry::MakeFilter(*live.resource, labels, fields);
    if (filter.ok()) (void)filter->Matches(*live.resource, live.object);
  }
  if (std::optional<nlohmann::json> j = fuzz::ParseJson(text)) {
    if (auto sel = registry::LabelSelector::FromJson(*j); sel.ok()) {
      MatchLiveObjects(*sel);
      CheckRoundTrip(*sel);
    }
  }
  return 0;
}
