// A streaming check of how deeply a request body nests, run while the body
// is read and before anything parses it: code that walks parsed objects
// recurses once per level, and connection threads have small stacks.
//
// It counts '[' and '{' against ']' and '}' outside quoted strings (JSON
// strings, YAML double- and single-quoted scalars, YAML comments), so it
// bounds JSON and YAML flow nesting; YAML block nesting is bounded by the
// YAML parser's own depth limit. Unbalanced closers in YAML plain scalars
// can only lower the count.
//
// Thread safety: one instance per body; not shared.
#ifndef KMOCK_SERVER_NESTING_GUARD_H_
#define KMOCK_SERVER_NESTING_GUARD_H_

#include <cstddef>

namespace kmock::server {

class NestingGuard {
 public:
  explicit NestingGuard(int max_depth) : max_depth_(max_depth) {}

  // Scans the next piece of the body; false once it nested deeper than
  // max_depth (and from then on).
  bool Feed(const char* data, size_t n);
  bool too_deep() const { return too_deep_; }

 private:
  enum class State { kPlain, kDoubleQuoted, kSingleQuoted, kComment };

  const int max_depth_;
  int depth_ = 0;
  State state_ = State::kPlain;
  bool escaped_ = false;  // the previous character was a backslash
  bool too_deep_ = false;
};

}  // namespace kmock::server

#endif  // KMOCK_SERVER_NESTING_GUARD_H_
