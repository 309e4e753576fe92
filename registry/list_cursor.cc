#include "registry/list_cursor.h"

#include <algorithm>

#include "registry/api_errors.h"
#include "registry/continue_token.h"
#include "registry/registry.h"

namespace kmock::registry {

Result<ListCursor> ListCursor::Open(store::Storage* storage,
                                    const api::ResourceInfo& res,
                                    std::string_view ns,
                                    const ListOptions& opts) {
  ListCursor c;
  c.storage_ = storage;
  c.res_ = &res;
  KMOCK_ASSIGN_OR_RETURN(
      c.filter_, MakeFilter(res, opts.label_selector, opts.field_selector));
  c.prefix_ = ObjectPrefix(res, ns);
  KMOCK_ASSIGN_OR_RETURN(int64_t rv,
                         ParseResourceVersion(opts.resource_version));
  const std::string& match = opts.resource_version_match;
  if (!match.empty() && match != "NotOlderThan" && match != "Exact")
    return Status(StatusCode::kInvalid,
                  "resourceVersionMatch: Unsupported value: \"" + match +
                      "\": supported values: \"Exact\", \"NotOlderThan\"");
  if (!match.empty() && opts.resource_version.empty())
    return Status(StatusCode::kInvalid,
                  "resourceVersionMatch: Forbidden: resourceVersionMatch is "
                  "forbidden unless resourceVersion is provided");

  c.start_key_ = c.prefix_;
  if (!opts.continue_token.empty()) {
    if (!opts.resource_version.empty() && opts.resource_version != "0")
      return BadRequest(
          "specifying resource version is not allowed when using continue");
    KMOCK_ASSIGN_OR_RETURN(ContinueToken tok,
                           DecodeContinue(opts.continue_token));
    c.continuing_ = true;
    c.read_rev_ = tok.revision;
    c.start_key_ = res.key_prefix + tok.start;
    if (c.start_key_.compare(0, c.prefix_.size(), c.prefix_) != 0)
      return BadRequest(
          "invalid continue token: key is outside the list's range");
  } else if (rv > 0) {
    bool exact = match == "Exact" || (match.empty() && opts.limit > 0);
    int64_t current = storage->CurrentRevision();
    if (rv > current)
      return Status(StatusCode::kTimeout,
                    "Too large resource version: " + std::to_string(rv) +
                        ", current: " + std::to_string(current));
    if (exact) c.read_rev_ = rv;
  }
  c.limit_ = opts.limit > 0 ? opts.limit : 0;
  return c;
}

Result<bool> ListCursor::Next(
    size_t chunk,
    const std::function<Result<bool>(const store::KeyValueView&)>& visit) {
  if (done_) return false;
  store::ListOptions lo;
  lo.prefix = prefix_;
  lo.revision = read_rev_;
  lo.start_key = start_key_;
  const int64_t want = std::max<int64_t>(1, static_cast<int64_t>(chunk));
  if (limit_ > 0) {
    // A page that may end the list counts what follows it (for
    // remainingItemCount); with selectors, read ahead in bigger pages.
    const int64_t to_limit =
        std::max<int64_t>(limit_ - count_, filter_.Empty() ? 1 : 500);
    lo.limit = std::min(to_limit, want);
    lo.count_remaining = lo.limit == to_limit;
  } else {
    lo.limit = want;
    lo.count_remaining = false;
  }
  // Items read past the limit are not visited; they count as remaining.
  int64_t unvisited = 0;
  Status visit_error;  // the visit's own error, returned as it is
  auto page = storage_->Scan(lo, [&](const store::KeyValueView& kv) -> Status {
    if (limit_ > 0 && count_ >= limit_) {
      ++unvisited;
      return Status::Ok();
    }
    Result<bool> matched = visit(kv);
    if (!matched.ok()) {
      visit_error = matched.status();
      return visit_error;
    }
    if (*matched) ++count_;
    next_key_.assign(kv.key);
    next_key_.push_back('\0');
    return Status::Ok();
  });
  if (!visit_error.ok()) return visit_error;
  if (!page.ok()) {
    if (page.status().code() == StatusCode::kCompacted) {
      if (continuing_)
        return ExpiredContinue(start_key_.substr(res_->key_prefix.size()),
                               storage_->CurrentRevision());
      return Expired("too old resource version: " + std::to_string(read_rev_) +
                     " (" + std::to_string(storage_->CompactedRevision()) +
                     ")");
    }
    return Internal(page.status().message());
  }
  list_rev_ = page->revision;
  read_rev_ = list_rev_;  // every further chunk reads the same revision
  if (limit_ > 0 && count_ >= limit_) {
    more_ = unvisited > 0 || page->more;
    remaining_ = unvisited + page->remaining;
    done_ = true;
    return false;
  }
  if (!page->more) {
    done_ = true;
    return false;
  }
  start_key_ = next_key_;
  return true;
}

std::string ListCursor::continue_token() const {
  if (!more_) return "";
  return EncodeContinue({list_rev_, next_key_.substr(res_->key_prefix.size())});
}

std::optional<int64_t> ListCursor::remaining_item_count() const {
  if (!more_ || !filter_.Empty()) return std::nullopt;
  return remaining_;
}

}  // namespace kmock::registry
