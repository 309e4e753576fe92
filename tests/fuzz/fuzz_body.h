// The create/update body path shared by the JSON, YAML and protobuf body
// fuzz targets: decode by Content-Type, the handler's body checks, then the
// registry's create and update pipelines (fuzz_util.h).
//
// Thread safety: as fuzz_util.h (one fuzzing thread).
#ifndef KMOCK_TESTS_FUZZ_FUZZ_BODY_H_
#define KMOCK_TESTS_FUZZ_FUZZ_BODY_H_

#include <string_view>

namespace kmock::fuzz {

// Feeds one request body of the given Content-Type through the server as a
// POST to the collection of the kind the body names (pods if none) and as a
// PUT over the live object of that kind.
void FuzzObjectBody(std::string_view content_type, std::string_view body);

}  // namespace kmock::fuzz

#endif  // KMOCK_TESTS_FUZZ_FUZZ_BODY_H_
