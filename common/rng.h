// The random source behind generated names, UIDs and IDs.
//
// Seeded from `kubemock serve --seed N`, so a CI run can be reproduced. All
// randomness in the program must come from here.
//
// Thread safety: all methods are safe to call from many threads (internally
// locked).
#ifndef KMOCK_COMMON_RNG_H_
#define KMOCK_COMMON_RNG_H_

#include <cstdint>
#include <mutex>
#include <random>
#include <string>

namespace kmock {

// The seed of a server's random source: `seed` itself on an empty store
// (revision 0), so a fresh run is reproducible, and a different stream for
// every later revision, so a restart never repeats what earlier runs issued.
uint64_t SeedForStore(uint64_t seed, int64_t revision);

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  uint64_t Next();
  // Uniform in [0, n). REQUIRES: n > 0.
  uint64_t Uniform(uint64_t n);
  // A random version-4 UUID, lower case, as Kubernetes uids.
  std::string Uuid();
  // n characters from Kubernetes' name-suffix alphabet
  // "bcdfghjklmnpqrstvwxz2456789" (apimachinery's utilrand.String), e.g. for
  // generateName and pod names.
  std::string NameSuffix(int n);
  // n lower-case hex digits (container IDs, image digests).
  std::string Hex(int n);

 private:
  std::mutex mu_;
  std::mt19937_64 engine_;
};

}  // namespace kmock

#endif  // KMOCK_COMMON_RNG_H_
