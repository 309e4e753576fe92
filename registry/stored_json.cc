#include "registry/stored_json.h"

#include <vector>

#include "api/json_encode.h"
#include "api/schema.h"
#include "common/json_scan.h"

namespace kmock::registry {

namespace {

constexpr char kObjectMeta[] =
    "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

// ObjectMeta's fields as the typed encoder orders them: for each JSON name,
// whether it is written before resourceVersion.
struct MetadataOrder {
  std::vector<std::string> before;  // sorted
  std::vector<std::string> after;   // sorted
  bool ok = false;

  static const MetadataOrder& Get() {
    static const MetadataOrder order = Build();
    return order;
  }

  static MetadataOrder Build() {
    MetadataOrder o;
    const api::Type* meta = api::Schema::Builtin().Find(kObjectMeta);
    if (!meta) return o;
    bool seen = false;
    for (const api::Field& f : meta->fields) {
      if (f.name == "resourceVersion") {
        seen = true;
      } else {
        (seen ? o.after : o.before).push_back(f.name);
      }
    }
    std::sort(o.before.begin(), o.before.end());
    std::sort(o.after.begin(), o.after.end());
    o.ok = seen;
    return o;
  }

  static bool In(const std::vector<std::string>& v, std::string_view key) {
    return std::binary_search(
        v.begin(), v.end(), key, [](const auto& a, const auto& b) {
          return std::string_view(a) < std::string_view(b);
        });
  }
};

// How objects of one resource are stored: whether in the served layout with
// ObjectMeta metadata, and the bytes they then start with. Computed once per
// resource and thread (resources live for the process), not per item.
struct StoredLayout {
  const api::ResourceInfo* res = nullptr;
  bool as_served = false;
  std::string prefix;  // {"kind":"K","apiVersion":"V",

  static const StoredLayout& Of(const api::ResourceInfo& res) {
    thread_local StoredLayout last;
    if (last.res != &res) last = Build(res);
    return last;
  }

  static StoredLayout Build(const api::ResourceInfo& res) {
    StoredLayout l;
    l.res = &res;
    if (res.to_storage || res.from_storage) return l;
    // Only built-in kinds are written in a typed layout (api/typed_json).
    if (res.schema != nullptr && res.schema != &api::Schema::Builtin())
      return l;
    const api::Type* type = api::Schema::Builtin().Find(res.schema_type);
    if (!type) return l;
    const api::Field* metadata = type->FindField("metadata");
    l.as_served =
        metadata && metadata->ref == kObjectMeta && MetadataOrder::Get().ok;
    l.prefix = "{\"kind\":";
    api::AppendJsonString(res.kind, &l.prefix);
    l.prefix += ",\"apiVersion\":";
    api::AppendJsonString(res.ApiVersion(), &l.prefix);
    l.prefix += ',';
    return l;
  }
};

}  // namespace

bool AppendServedFromStored(const api::ResourceInfo& res,
                            std::string_view stored, int64_t revision,
                            bool with_type, std::string* out) {
  const StoredLayout& layout = StoredLayout::Of(res);
  if (!layout.as_served) return false;
  const std::string& prefix = layout.prefix;
  constexpr std::string_view kMetadataKey = "\"metadata\":";
  if (!stored.starts_with(prefix) ||
      stored.substr(prefix.size()).substr(0, kMetadataKey.size()) !=
          kMetadataKey)
    return false;
  const size_t meta_at = prefix.size() + kMetadataKey.size();
  if (meta_at >= stored.size() || stored[meta_at] != '{') return false;

  // Where resourceVersion goes: before the first member the encoder writes
  // after it (a known later field, or any unknown one: those come last).
  // The walk stops there: what follows (labels, annotations, managedFields:
  // most of the metadata) was written after it in the encoder's order.
  const MetadataOrder& order = MetadataOrder::Get();
  const std::string_view metadata = stored.substr(meta_at);
  size_t insert_at = std::string_view::npos;  // offset in stored
  bool members = false, bad = false;
  size_t meta_end = std::string_view::npos;
  bool whole = ForEachTopLevelMember(metadata, [&](std::string_view key,
                                                   std::string_view value) {
    members = true;
    meta_end = static_cast<size_t>(value.data() + value.size() - stored.data());
    if (MetadataOrder::In(order.before, key)) return true;
    if (key == "resourceVersion" || key.find('\\') != key.npos) {
      bad = true;
      return false;
    }
    insert_at = static_cast<size_t>(key.data() - 1 - stored.data());
    return false;
  });
  if (!whole || bad) return false;
  if (insert_at == std::string_view::npos) {
    // Every member comes before it: it goes last, before the closing brace.
    if (!members) meta_end = meta_at + 1;  // just after '{'
    while (meta_end < stored.size() && stored[meta_end] != '}') {
      char c = stored[meta_end];
      if (c != ' ' && c != '\n' && c != '\t' && c != '\r') return false;
      ++meta_end;
    }
    if (meta_end >= stored.size()) return false;
  }

  const std::string rv = std::to_string(revision);
  const size_t from = with_type ? 0 : prefix.size();
  out->reserve(out->size() + stored.size() + rv.size() + 24);
  if (!with_type) out->push_back('{');
  if (insert_at != std::string_view::npos) {
    out->append(stored.substr(from, insert_at - from));
    out->append("\"resourceVersion\":\"");
    out->append(rv);
    out->append("\",");
    out->append(stored.substr(insert_at));
  } else {
    out->append(stored.substr(from, meta_end - from));
    if (members) out->push_back(',');
    out->append("\"resourceVersion\":\"");
    out->append(rv);
    out->push_back('"');
    out->append(stored.substr(meta_end));
  }
  return true;
}

std::optional<nlohmann::json> StoredLabels(std::string_view stored) {
  std::optional<std::string_view> metadata = TopLevelMember(stored, "metadata");
  if (!metadata) return std::nullopt;
  std::optional<std::string_view> labels = TopLevelMember(*metadata, "labels");
  if (!labels) return nlohmann::json();
  nlohmann::json parsed = nlohmann::json::parse(*labels, nullptr, false);
  if (parsed.is_discarded()) return std::nullopt;
  return parsed;
}

}  // namespace kmock::registry
