// GET of a collection: labelSelector, fieldSelector, limit, continue,
// resourceVersion and resourceVersionMatch go to the registry; the List (or
// its Table) comes back. A JSON List is written from the items' stored
// bytes (registry::ListJsonWriter); one longer than a chunk is streamed.
#include <algorithm>
#include <cstdio>
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

// How much of a streamed list goes into one HTTP chunk when the HTTP library
// frames it: with its size line and CRLFs a chunk is 32 KiB, two full TLS
// records, and the copies the library makes of it stay in cache and reuse
// the same memory.
constexpr size_t kHttpChunkPayload = 32 * 1024 - 8;  // "7ff8\r\n" ... "\r\n"

// Room kept before the items for a chunk's size line when the list frames
// its own chunks: up to 16 hex digits and CRLF.
constexpr size_t kSizeLineRoom = 18;

// The HTTP library compresses a chunked body for a client that accepts
// gzip (or br); it then has to frame it. For other clients the list frames
// its chunks itself and hands the library whole chunks to send, without
// the library's copies (an eighth of a full LIST's server CPU).
bool LibraryWouldCompress(const httplib::Request& req) {
  const std::string encodings = req.get_header_value("Accept-Encoding");
  return encodings.find("gzip") != std::string::npos ||
         encodings.find("br") != std::string::npos;
}

// A list that did not fit one chunk: the rest is read and written as the
// client takes it, so the server never holds the whole response.
struct ListStream {
  std::unique_ptr<registry::ListJsonWriter> writer;
  bool self_framed = false;
  // The next chunk: the list's head and first items to begin with; when
  // self-framed, after kSizeLineRoom bytes kept for the size line.
  std::string pending;
  bool done = false;

  size_t Start() const { return self_framed ? kSizeLineRoom : 0; }

  // Reads the next items into pending; false on a read error.
  bool Fill() {
    pending.resize(Start());
    while (!done && pending.size() == Start()) {
      Result<bool> more = writer->Next(&pending);
      if (!more.ok()) return false;
      if (!*more) {
        pending += kListTail;
        done = true;
      }
    }
    return true;
  }

  bool Pump(httplib::DataSink& sink) {
    // The status line is gone: a read error can only cut the response
    // short, which the client reports as an unexpected end of its body.
    if (self_framed ? !WriteFramed(sink) : !WriteSlices(sink)) return false;
    if (done) {
      sink.done();
      return true;
    }
    return Fill();
  }

  bool WriteSlices(httplib::DataSink& sink) {
    for (size_t sent = 0; sent < pending.size();) {
      size_t n = std::min(kHttpChunkPayload, pending.size() - sent);
      if (!sink.write(pending.data() + sent, n)) return false;
      sent += n;
    }
    return true;
  }

  // pending as one chunk (its size line written into the room before it),
  // and after the last one the terminating zero-size chunk.
  bool WriteFramed(httplib::DataSink& sink) {
    size_t start = kSizeLineRoom;
    const size_t payload = pending.size() - kSizeLineRoom;
    if (payload > 0) {
      char line[kSizeLineRoom + 1];
      int n = snprintf(line, sizeof line, "%zx\r\n", payload);
      start -= static_cast<size_t>(n);
      pending.replace(start, static_cast<size_t>(n), line,
                      static_cast<size_t>(n));
      pending += "\r\n";
    }
    if (done) pending += "0\r\n\r\n";
    return sink.write(pending.data() + start, pending.size() - start);
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
  stream->self_framed = !LibraryWouldCompress(*ctx.req);
  stream->pending.assign(stream->Start(), ' ');
  stream->pending += ListHead(*ctx.resource, **writer);
  stream->pending += items;
  stream->writer = std::move(writer).value();
  auto pump = [stream](size_t, httplib::DataSink& sink) {
    return stream->Pump(sink);
  };
  if (stream->self_framed) {
    // Sent as a body of unknown length, which the library writes as it is:
    // the chunked framing is ours.
    res.set_header("Transfer-Encoding", "chunked");
    res.set_content_provider(ctx.output.ContentType(), pump);
  } else {
    res.set_chunked_content_provider(ctx.output.ContentType(), pump);
  }
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
