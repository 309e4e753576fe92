// GET of a collection: labelSelector, fieldSelector, limit, continue,
// resourceVersion and resourceVersionMatch go to the registry; the List (or
// its Table) comes back. A JSON List is written from the items' stored
// bytes (registry::ListJsonWriter); one longer than a chunk is streamed.
#include <algorithm>
#include <memory>

#include "api/json_encode.h"
#include "server/handlers/context.h"
#include "server/handlers/options.h"
#include "server/handlers/render.h"
#include "server/response.h"

namespace kmock::server {

namespace {

// The List up to its first item, as kube-apiserver writes it: kind,
// apiVersion, metadata with resourceVersion, continue and
// remainingItemCount.
std::string ListHead(const api::ResourceInfo& resource,
                     const registry::ListJsonWriter& list) {
  std::string out = "{\"kind\":";
  api::AppendJsonString(resource.list_kind, &out);
  out += ",\"apiVersion\":";
  api::AppendJsonString(resource.ApiVersion(), &out);
  out += ",\"metadata\":{\"resourceVersion\":\"";
  out += std::to_string(list.revision());
  out += '"';
  std::string continue_token = list.continue_token();
  if (!continue_token.empty()) {
    out += ",\"continue\":";
    api::AppendJsonString(continue_token, &out);
    if (auto remaining = list.remaining_item_count()) {
      out += ",\"remainingItemCount\":";
      out += std::to_string(*remaining);
    }
  }
  out += "},\"items\":[";
  return out;
}

constexpr char kListTail[] = "]}\n";

// How much of a streamed list goes into one HTTP chunk: with its size line
// and CRLFs a chunk is 32 KiB, two full TLS records, and the copies the
// HTTP library makes of it stay in cache and reuse the same memory.
constexpr size_t kHttpChunkPayload = 32 * 1024 - 8;  // "7ff8\r\n" ... "\r\n"

// A list that did not fit one chunk: the rest is read and written as the
// client takes it, so the server never holds the whole response.
struct ListStream {
  std::unique_ptr<registry::ListJsonWriter> writer;
  std::string pending;
  size_t sent = 0;  // of pending
  bool done = false;

  bool Pump(httplib::DataSink& sink) {
    if (sent == pending.size() && !done) {
      pending.clear();
      sent = 0;
      Result<bool> more = writer->Next(&pending);
      // The status line is gone: a read error can only cut the response
      // short, which the client reports as an unexpected end of its body.
      if (!more.ok()) return false;
      if (!*more) {
        pending += kListTail;
        done = true;
      }
    }
    while (sent < pending.size()) {
      size_t n = std::min(kHttpChunkPayload, pending.size() - sent);
      if (!sink.write(pending.data() + sent, n)) return false;
      sent += n;
    }
    if (done) sink.done();
    return true;
  }
};

void WriteJsonList(const RequestContext& ctx, const registry::ListOptions& opts,
                   httplib::Response& res) {
  auto writer = ctx.registry->ListJson(*ctx.resource, ctx.info->ns, opts);
  if (!writer.ok()) return WriteError(res, writer.status());
  std::string items;
  Result<bool> more = (*writer)->Next(&items);
  // A page (limit) is read whole, for its continue token; so is a list that
  // fits in one chunk.
  while (more.ok() && *more && opts.limit > 0) more = (*writer)->Next(&items);
  if (!more.ok()) return WriteError(res, more.status());
  res.status = 200;
  if (!*more) {
    std::string body = ListHead(*ctx.resource, **writer);
    body += items;
    body += kListTail;
    res.set_content(body, ctx.output.ContentType());
    return;
  }
  auto stream = std::make_shared<ListStream>();
  stream->pending = ListHead(*ctx.resource, **writer);
  stream->pending += items;
  stream->writer = std::move(writer).value();
  res.set_chunked_content_provider(
      ctx.output.ContentType(),
      [stream](size_t, httplib::DataSink& sink) { return stream->Pump(sink); });
}

}  // namespace

void HandleList(const RequestContext& ctx, httplib::Response& res) {
  Result<registry::ListOptions> opts = ListOptionsFrom(*ctx.req);
  if (!opts.ok()) {
    WriteError(res, opts.status());
    return;
  }
  if (!ctx.output.table && ctx.output.encoding == Encoding::kJson)
    return WriteJsonList(ctx, *opts, res);
  Result<nlohmann::json> list =
      ctx.registry->List(*ctx.resource, ctx.info->ns, *opts);
  if (!list.ok()) {
    WriteError(res, list.status());
    return;
  }
  Result<nlohmann::json> out =
      Render(ctx, std::move(list).value(), /*is_list=*/true);
  if (!out.ok()) {
    WriteError(res, out.status());
    return;
  }
  WriteEncoded(res, 200, *out, ctx.output);
}

}  // namespace kmock::server
