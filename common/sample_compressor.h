// SampleCompressor: compresses short texts that resemble one sample text,
// with LZ4 using the sample as its dictionary.
//
// Objects of one resource share most of their text (field names, defaults,
// the template they came from), and a single object is too short for a
// compressor to find much to reuse within it: on its own LZ4 keeps about
// 57% of a pod's JSON. Compressed against another pod's text it keeps about
// 10%, and expanding it again costs well under a microsecond. The sample
// is fixed for the compressor's life, so what it compressed it can always
// expand.
//
// Thread safety: immutable after construction; Compress and Expand may be
// called from any thread at once.
#ifndef KMOCK_COMMON_SAMPLE_COMPRESSOR_H_
#define KMOCK_COMMON_SAMPLE_COMPRESSOR_H_

#include <optional>
#include <string>
#include <string_view>

namespace kmock {

class SampleCompressor {
 public:
  // LZ4 reads at most the last 64 KiB of a dictionary: a longer sample is
  // cut to those.
  explicit SampleCompressor(std::string_view sample);

  // The text, compressed: one format byte (0 = stored as is, 1 = LZ4), and
  // for LZ4 the text's length as a varint before the compressed block.
  std::string Compress(std::string_view text) const;
  // The text a Compress of this compressor returned; nullopt if the bytes
  // are not such a result.
  std::optional<std::string> Expand(std::string_view compressed) const;

 private:
  std::string sample_;
};

}  // namespace kmock

#endif  // KMOCK_COMMON_SAMPLE_COMPRESSOR_H_
