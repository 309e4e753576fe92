// What the endpoints controller last wrote to each Service's
// EndpointSlices, so that a sync never acts on a slice cache older than its
// own writes: kube-controller-manager's endpoint slice tracker. Without it
// a second sync that runs before the informer has seen a slice the first
// one created would create that slice again.
//
// Thread safety: every method may be called from any thread.
#ifndef KMOCK_CONTROLLERS_ENDPOINTS_SLICE_TRACKER_H_
#define KMOCK_CONTROLLERS_ENDPOINTS_SLICE_TRACKER_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "controllers/informer.h"

namespace kmock::controllers::endpoints {

class SliceTracker {
 public:
  // A slice of the Service was created or updated (the written object).
  void Wrote(const std::string& service_key, const json& slice);
  // A slice of the Service was deleted.
  void Deleted(const std::string& service_key, const std::string& slice_name);
  // True while the cached slices `live` of the Service miss one of its
  // writes: a slice written but absent or older, or deleted but present.
  // Writes the cache has caught up with are forgotten, and so are writes
  // it has not caught up with after kPatience verdicts (a slice whose
  // managed-by label a user removed leaves the cache for good).
  bool Stale(const std::string& service_key,
             const std::vector<ObjectPtr>& live);
  // Forgets the Service (it is gone).
  void Forget(const std::string& service_key);

 private:
  static constexpr int kPatience = 10;
  static constexpr int64_t kDeleted = -1;
  struct Write {
    int64_t resource_version = 0;  // kDeleted for a delete
    int stale_verdicts = 0;
  };
  std::mutex mu_;
  // service key -> slice name -> the last write.
  std::map<std::string, std::map<std::string, Write>> written_;
};

}  // namespace kmock::controllers::endpoints

#endif  // KMOCK_CONTROLLERS_ENDPOINTS_SLICE_TRACKER_H_
