// Request templates: a path or body in which every "@N@" stands for the
// request's sequence number, so that each create gets its own name and each
// update a new value (an update to the value already stored would change
// nothing and produce no event). Also the base64 and JSON-string encodings
// the etcd JSON gateway needs. Pure functions; safe from any thread.
#ifndef KMOCK_BENCH_DRIVER_REQUEST_TEMPLATE_H_
#define KMOCK_BENCH_DRIVER_REQUEST_TEMPLATE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace kmock::bench {

inline constexpr std::string_view kSequencePlaceholder = "@N@";

// text with every "@N@" replaced by the decimal n.
std::string ExpandTemplate(std::string_view text, int64_t n);

// Standard base64 with padding (RFC 4648 section 4).
std::string Base64(std::string_view bytes);

// s as a JSON string literal, quotes included.
std::string JsonString(std::string_view s);

}  // namespace kmock::bench

#endif  // KMOCK_BENCH_DRIVER_REQUEST_TEMPLATE_H_
