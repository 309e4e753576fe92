#include "server/nesting_guard.h"

namespace kmock::server {

bool NestingGuard::Feed(const char* data, size_t n) {
  if (too_deep_) return false;
  for (size_t i = 0; i < n; ++i) {
    char c = data[i];
    switch (state_) {
      case State::kPlain:
        if (c == '[' || c == '{') {
          if (++depth_ > max_depth_) {
            too_deep_ = true;
            return false;
          }
        } else if (c == ']' || c == '}') {
          if (depth_ > 0) --depth_;
        } else if (c == '"') {
          state_ = State::kDoubleQuoted;
        } else if (c == '\'') {
          state_ = State::kSingleQuoted;
        } else if (c == '#') {
          state_ = State::kComment;
        }
        break;
      case State::kDoubleQuoted:
        if (escaped_) {
          escaped_ = false;
        } else if (c == '\\') {
          escaped_ = true;
        } else if (c == '"') {
          state_ = State::kPlain;
        }
        break;
      case State::kSingleQuoted:
        // YAML doubles a quote inside: 'it''s' leaves and re-enters.
        if (c == '\'') state_ = State::kPlain;
        break;
      case State::kComment:
        if (c == '\n') state_ = State::kPlain;
        break;
    }
  }
  return true;
}

}  // namespace kmock::server
