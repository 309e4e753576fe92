#include "registry/list_served.h"

namespace kmock::registry {

Result<bool> ServedListReader::Next(std::vector<ServedPtr>* out, size_t chunk) {
  return cursor_.Next(
      chunk, [this, out](const store::KeyValueView& kv) -> Result<bool> {
        // Small lists (kubectl get) are remembered for the next reader; the
        // items of a large one would only push out what watchers need.
        KMOCK_ASSIGN_OR_RETURN(
            ServedPtr obj,
            metadata_view_
                ? cache_->DecodeMetadata(res_, kv.key, kv.value,
                                         kv.mod_revision)
                : cache_->Decode(res_, kv.key, kv.value, kv.mod_revision,
                                 /*remember=*/cursor_.matched() < 512));
        if (!cursor_.filter().Matches(res_, obj->value())) return false;
        out->push_back(std::move(obj));
        return true;
      });
}

}  // namespace kmock::registry
