// FNV-1a, 64 bits: a small, fast, non-cryptographic hash for the values we
// derive from names (fake image digests and sizes, generated suffixes) and
// for cache keys made by our own components. Not for anything a client
// could choose to collide.
//
// Thread safety: a pure function.
#ifndef KMOCK_COMMON_FNV_H_
#define KMOCK_COMMON_FNV_H_

#include <cstdint>
#include <string_view>

namespace kmock {

inline constexpr uint64_t kFnv64OffsetBasis = 14695981039346656037ull;

// The hash of data, starting from `basis` (the standard offset basis unless
// a caller keeps another to keep the values it has always derived).
inline uint64_t Fnv1a64(std::string_view data,
                        uint64_t basis = kFnv64OffsetBasis) {
  uint64_t h = basis;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace kmock

#endif  // KMOCK_COMMON_FNV_H_
