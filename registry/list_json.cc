#include "registry/list_json.h"

#include "registry/stored_json.h"

namespace kmock::registry {

Result<bool> ListJsonWriter::Next(std::string* out, size_t chunk) {
  return cursor_.Next(chunk, [this, out](const store::KeyValueView& kv) {
    return AppendItem(kv, out);
  });
}

Result<bool> ListJsonWriter::AppendItem(const store::KeyValueView& kv,
                                        std::string* out) {
  const Filter& filter = cursor_.filter();
  const size_t size_before = out->size();
  if (any_) out->push_back(',');
  if (!metadata_view_ && filter.fields.Empty()) {
    // Labels read from the bytes; when they cannot be, the decode decides.
    std::optional<nlohmann::json> labels =
        filter.labels.Empty() ? nlohmann::json() : StoredLabels(kv.value);
    if (labels) {
      if (!filter.labels.Matches(*labels)) {
        out->resize(size_before);
        return false;
      }
      if (AppendServedFromStored(res_, kv.value, kv.mod_revision,
                                 /*with_type=*/false, out)) {
        any_ = true;
        return true;
      }
    }
  }
  KMOCK_ASSIGN_OR_RETURN(
      ServedPtr obj,
      metadata_view_
          ? cache_->DecodeMetadata(res_, kv.key, kv.value, kv.mod_revision)
          : cache_->Decode(res_, kv.key, kv.value, kv.mod_revision,
                           /*remember=*/cursor_.matched() < 512));
  if (!filter.Matches(res_, obj->value())) {
    out->resize(size_before);
    return false;
  }
  AppendListItemJson(*obj, out);
  any_ = true;
  return true;
}

}  // namespace kmock::registry
