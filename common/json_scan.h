// Reads parts of a JSON text without parsing all of it: finds the value of
// one member of the top-level object by skipping over the other members'
// values (strings, numbers, literals, nested objects and arrays) byte by
// byte. Used where a caller needs a small part of a large stored object (the
// metadata of a pod), so that the rest is never turned into a tree.
//
// The scan checks structure only as far as it needs to skip: it finds the
// member in every valid JSON text, and on invalid text it returns nullopt or
// a range the caller's parser then rejects; it never reads out of bounds.
// Keys are compared byte for byte, so a key written with escapes for plain
// characters ("\u006d...") does not match.
//
// Thread safety: pure functions.
#ifndef KMOCK_COMMON_JSON_SCAN_H_
#define KMOCK_COMMON_JSON_SCAN_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace kmock {

// The text of `key`'s value in the top-level object of `text` (the first
// occurrence), or nullopt when text is not an object or has no such member.
std::optional<std::string_view> TopLevelMember(std::string_view text,
                                               std::string_view key);

// Calls fn(key, value text) for each member of the top-level object of
// `text` in order, until fn returns false. Returns false when the text is
// not an object or is cut short or malformed where the scan had to read
// (members before that point have been passed to fn).
bool ForEachTopLevelMember(
    std::string_view text,
    const std::function<bool(std::string_view, std::string_view)>& fn);

// Appends `"key":value` to an object being written as text, after a comma
// unless it is the first member (out ends with '{').
void AppendMemberText(std::string_view key, std::string_view value,
                      std::string* out);

// The top-level object of `text` without its member `drop`, every other
// member copied as it is; nullopt when the text cannot be scanned whole.
std::optional<std::string> ObjectWithoutMember(std::string_view text,
                                               std::string_view drop);

}  // namespace kmock

#endif  // KMOCK_COMMON_JSON_SCAN_H_
