#include "common/rng.h"

namespace kmock {

uint64_t SeedForStore(uint64_t seed, int64_t revision) {
  if (revision == 0) return seed;
  // splitmix64's finaliser over the pair: neighbouring revisions give
  // unrelated seeds.
  uint64_t z = seed ^ (uint64_t(revision) * 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Rng::Next() {
  std::lock_guard<std::mutex> l(mu_);
  return engine_();
}

uint64_t Rng::Uniform(uint64_t n) { return Next() % n; }

std::string Rng::Uuid() {
  uint64_t a = Next(), b = Next();
  a = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 10
  static const char* kHex = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (int i = 15; i >= 0; --i) {
    out.push_back(kHex[(a >> (i * 4)) & 0xf]);
    if (i == 8 || i == 4) out.push_back('-');
  }
  out.push_back('-');
  for (int i = 15; i >= 0; --i) {
    out.push_back(kHex[(b >> (i * 4)) & 0xf]);
    if (i == 12) out.push_back('-');
  }
  return out;
}

std::string Rng::NameSuffix(int n) {
  static const char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (int i = 0; i < n; ++i)
    out.push_back(kAlphabet[Uniform(sizeof(kAlphabet) - 1)]);
  return out;
}

std::string Rng::Hex(int n) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(kHex[Uniform(16)]);
  return out;
}

}  // namespace kmock
