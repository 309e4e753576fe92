#include "common/sample_compressor.h"

#include <lz4.h>

#include <cstdint>
#include <limits>
#include <memory>

#include "common/varint.h"

namespace kmock {
namespace {

constexpr char kStored = 0;
constexpr char kLz4 = 1;
constexpr size_t kMaxDictionary = 64 << 10;
// Texts up to this size are compressed; beyond it they are stored (LZ4
// blocks take an int length, and informer objects are far smaller).
constexpr size_t kMaxCompressed = 64 << 20;

std::string Stored(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 1);
  out.push_back(kStored);
  out.append(text);
  return out;
}

}  // namespace

SampleCompressor::SampleCompressor(std::string_view sample)
    : sample_(sample.size() > kMaxDictionary
                  ? sample.substr(sample.size() - kMaxDictionary)
                  : sample) {}

std::string SampleCompressor::Compress(std::string_view text) const {
  if (text.empty() || text.size() > kMaxCompressed) return Stored(text);
  const int bound = LZ4_compressBound(static_cast<int>(text.size()));
  std::string out;
  out.push_back(kLz4);
  PutVarint(&out, text.size());
  const size_t header = out.size();
  out.resize(header + static_cast<size_t>(bound));
  // The stream state is 16 KiB: on the heap, not on a worker's stack.
  auto stream = std::make_unique<LZ4_stream_t>();
  LZ4_initStream(stream.get(), sizeof(LZ4_stream_t));
  LZ4_loadDict(stream.get(), sample_.data(), static_cast<int>(sample_.size()));
  const int n =
      LZ4_compress_fast_continue(stream.get(), text.data(), out.data() + header,
                                 static_cast<int>(text.size()), bound, 1);
  if (n <= 0 || header + static_cast<size_t>(n) >= text.size() + 1) {
    return Stored(text);  // it did not get smaller
  }
  out.resize(header + static_cast<size_t>(n));
  out.shrink_to_fit();
  return out;
}

std::optional<std::string> SampleCompressor::Expand(
    std::string_view compressed) const {
  if (compressed.empty()) return std::nullopt;
  const char format = compressed.front();
  compressed.remove_prefix(1);
  if (format == kStored) return std::string(compressed);
  uint64_t size;
  if (format != kLz4 || !GetVarint(&compressed, &size) || size == 0 ||
      size > kMaxCompressed ||
      compressed.size() >
          static_cast<size_t>(std::numeric_limits<int>::max())) {
    return std::nullopt;
  }
  std::string text(size, '\0');
  const int n = LZ4_decompress_safe_usingDict(
      compressed.data(), text.data(), static_cast<int>(compressed.size()),
      static_cast<int>(size), sample_.data(), static_cast<int>(sample_.size()));
  if (n < 0 || static_cast<uint64_t>(n) != size) return std::nullopt;
  return text;
}

}  // namespace kmock
