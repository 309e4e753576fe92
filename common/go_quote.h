// Go's strconv.Quote for the strings kube-apiserver puts in its messages
// (field errors, patch errors, conflict messages), so ours read the same.
//
// Thread safety: a pure function.
#ifndef KMOCK_COMMON_GO_QUOTE_H_
#define KMOCK_COMMON_GO_QUOTE_H_

#include <string>
#include <string_view>

namespace kmock {

// "a\"b\n" → "\"a\\\"b\\n\"": quotes, backslash escapes, \xNN for other
// control characters.
std::string GoQuote(std::string_view text);

}  // namespace kmock

#endif  // KMOCK_COMMON_GO_QUOTE_H_
