// Fuzz target: a create or update request body sent as
// application/vnd.kubernetes.protobuf, decoded and checked as the server does,
// then run through the registry's create and update pipelines (fuzz_body.h).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_body.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kmock::fuzz::FuzzObjectBody("application/vnd.kubernetes.protobuf",
                              kmock::fuzz::AsText(data, size));
  return 0;
}
