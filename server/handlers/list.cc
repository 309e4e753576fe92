// GET of a collection: labelSelector, fieldSelector, limit, continue,
// resourceVersion and resourceVersionMatch go to the registry; the List (or
// its Table), as JSON or YAML, comes back a piece at a time
// (streamed_body.h), so a long list is never built whole: a JSON List is
// written from the items' stored bytes (registry::ListJsonWriter); a Table
// or YAML renders the items of one piece at a time
// (registry::ServedListReader). A page (limit) is read whole before it is
// sent, as its head carries the continue token.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "api/json_encode.h"
#include "api/typed_json.h"
#include "server/handlers/context.h"
#include "server/handlers/options.h"
#include "server/handlers/render.h"
#include "server/handlers/streamed_body.h"
#include "server/response.h"
#include "server/yaml_json.h"

namespace kmock::server {

namespace {

using nlohmann::json;

// Keys the first piece reads, before the size of the items is known.
constexpr size_t kFirstPieceKeys = 64;

// The List's metadata: resourceVersion, continue and remainingItemCount.
template <typename Reader>
json ListMeta(const Reader& reader) {
  json meta = {{"resourceVersion", std::to_string(reader.revision())}};
  std::string continue_token = reader.continue_token();
  if (!continue_token.empty()) {
    meta["continue"] = continue_token;
    if (auto remaining = reader.remaining_item_count())
      meta["remainingItemCount"] = *remaining;
  }
  return meta;
}

// A List (or Table) body: the part before the first item, the items a
// piece at a time, the part after the last item. The head is written after
// the first piece is read (the revision is known then) or, for a page,
// after the whole page (its continue token is known then).
class ListSource : public BodySource {
 public:
  explicit ListSource(bool paged)
      : paged_(paged), sizer_(kFirstPieceKeys, registry::kListChunk) {}

  Result<bool> Next(std::string* out) override {
    bool more = false;
    if (!started_) {
      started_ = true;
      // The items are read into place and the head put before them after,
      // so a page is held once, not once more as a copy. Reading goes on
      // to the first item (or the end): an empty list is written as such.
      const size_t start = out->size();
      do {
        KMOCK_ASSIGN_OR_RETURN(more, Piece(out));
      } while (more && (paged_ || out->size() == start));
      if (!more && out->size() == start) {
        AppendEmpty(out);
        return false;
      }
      std::string head;
      AppendHead(&head);
      out->insert(start, head);
    } else {
      KMOCK_ASSIGN_OR_RETURN(more, Piece(out));
    }
    if (!more) AppendTail(out);
    return more;
  }

 protected:
  // Appends the items of up to `keys` more keys; whether more may follow.
  virtual Result<bool> Read(std::string* out, size_t keys) = 0;
  virtual void AppendHead(std::string* out) = 0;
  virtual void AppendTail(std::string* out) = 0;
  // A list without items.
  virtual void AppendEmpty(std::string* out) {
    AppendHead(out);
    AppendTail(out);
  }

 private:
  Result<bool> Piece(std::string* out) {
    const size_t before = out->size();
    const size_t keys = sizer_.keys();
    KMOCK_ASSIGN_OR_RETURN(bool more, Read(out, keys));
    sizer_.Record(keys, out->size() - before);
    return more;
  }

  const bool paged_;
  PieceSizer sizer_;
  bool started_ = false;
};

// JSON List from stored bytes, as kube-apiserver writes it: kind,
// apiVersion, metadata with resourceVersion, continue and
// remainingItemCount, items.
class JsonListSource : public ListSource {
 public:
  JsonListSource(const api::ResourceInfo& resource,
                 std::unique_ptr<registry::ListJsonWriter> writer, bool paged)
      : ListSource(paged), resource_(resource), writer_(std::move(writer)) {}

 protected:
  Result<bool> Read(std::string* out, size_t keys) override {
    return writer_->Next(out, keys);
  }
  void AppendHead(std::string* out) override {
    *out += "{\"kind\":";
    api::AppendJsonString(resource_.list_kind, out);
    *out += ",\"apiVersion\":";
    api::AppendJsonString(resource_.ApiVersion(), out);
    *out += ",\"metadata\":{\"resourceVersion\":\"";
    *out += std::to_string(writer_->revision());
    *out += '"';
    std::string continue_token = writer_->continue_token();
    if (!continue_token.empty()) {
      *out += ",\"continue\":";
      api::AppendJsonString(continue_token, out);
      if (auto remaining = writer_->remaining_item_count()) {
        *out += ",\"remainingItemCount\":";
        *out += std::to_string(*remaining);
      }
    }
    *out += "},\"items\":[";
  }
  void AppendTail(std::string* out) override { *out += "]}\n"; }

 private:
  const api::ResourceInfo& resource_;
  std::unique_ptr<registry::ListJsonWriter> writer_;
};

// A Table or a YAML List (or YAML Table), rendered from decoded items a
// piece at a time. Its frame (the whole body with no items) is encoded as
// usual and split where the items go: "rows" is the last key of a Table's
// JSON (whose keys are sorted), and in YAML, whose keys are sorted too, the
// items' key line ("items: []", "rows: []") is replaced by the entries.
class RenderedListSource : public ListSource {
 public:
  // Keeps what it needs of ctx, which is gone when the body is written.
  RenderedListSource(const RequestContext& ctx,
                     std::unique_ptr<registry::ServedListReader> reader,
                     TableOptions table, bool paged)
      : ListSource(paged),
        resource_(*ctx.resource),
        output_(ctx.output),
        reader_(std::move(reader)),
        table_(table),
        now_(ctx.clock->Now()),
        key_(ctx.output.table ? "rows" : "items") {}

 protected:
  Result<bool> Read(std::string* out, size_t keys) override {
    std::vector<registry::ServedPtr> items;
    KMOCK_ASSIGN_OR_RETURN(bool more, reader_->Next(&items, keys));
    if (output_.table && resource_.table_row_less) {
      // The kind's printer orders the rows (of the list, or of the page
      // when the client pages): read them all first.
      while (more) {
        KMOCK_ASSIGN_OR_RETURN(more, reader_->Next(&items, keys));
      }
      std::stable_sort(
          items.begin(), items.end(),
          [&](const registry::ServedPtr& a, const registry::ServedPtr& b) {
            return resource_.table_row_less(a->value(), b->value());
          });
    }
    static const std::vector<std::string> kTypeKeys = {"apiVersion", "kind"};
    static const std::vector<std::string> kNone;
    for (const registry::ServedPtr& item : items) {
      if (output_.encoding == Encoding::kYaml) {
        if (output_.table) {
          AppendYamlSequenceEntry(Row(*item), kNone, out);
        } else {
          // List items are written without their type, as in a List.
          AppendYamlSequenceEntry(item->value(), kTypeKeys, out);
        }
        continue;
      }
      if (any_) out->push_back(',');
      api::AppendJson(Row(*item), out);
      any_ = true;
    }
    return more;
  }
  void AppendHead(std::string* out) override {
    Split();
    *out += head_;
  }
  void AppendTail(std::string* out) override { *out += tail_; }
  void AppendEmpty(std::string* out) override {
    *out +=
        output_.encoding == Encoding::kYaml ? JsonToYaml(Frame()) : FrameJson();
  }

 private:
  json Row(const registry::ServedObject& item) const {
    return TableRow(resource_, item.value(), now_, table_);
  }

  json Frame() const {
    json meta = ListMeta(*reader_);
    if (output_.table) return TableFrame(resource_, meta, table_);
    return {{"apiVersion", resource_.ApiVersion()},
            {"kind", resource_.list_kind},
            {"metadata", std::move(meta)},
            {"items", json::array()}};
  }

  std::string FrameJson() const {
    std::string s;
    api::AppendTypedJson(Frame(), &s);
    s.push_back('\n');
    return s;
  }

  void Split() {
    if (output_.encoding == Encoding::kYaml) {
      // A top-level key starts a line; yaml-cpp writes an empty sequence
      // under it as "items:\n  []" (or "items: []").
      std::string yaml = "\n" + JsonToYaml(Frame());
      size_t at = std::string::npos;
      size_t length = 0;
      for (const std::string& line :
           {"\n" + key_ + ":\n  []\n", "\n" + key_ + ": []\n"}) {
        at = yaml.find(line);
        length = line.size();
        if (at != std::string::npos) break;
      }
      if (at == std::string::npos) {  // never: the frame is ours
        at = yaml.size() - 1;
        length = 1;
      }
      head_ = yaml.substr(1, at) + key_ + ":\n";
      tail_ = yaml.substr(at + length);
      return;
    }
    // ...,"rows":[]}\n
    std::string s = FrameJson();
    head_ = s.substr(0, s.size() - 3);
    tail_ = "]}\n";
  }

  const api::ResourceInfo& resource_;
  const OutputFormat output_;
  std::unique_ptr<registry::ServedListReader> reader_;
  const TableOptions table_;
  const TimePoint now_;
  const std::string key_;
  bool any_ = false;
  std::string head_;
  std::string tail_;
};

}  // namespace

void HandleList(const RequestContext& ctx, httplib::Response& res) {
  Result<registry::ListOptions> opts = ListOptionsFrom(*ctx.req);
  if (!opts.ok()) {
    WriteError(res, opts.status());
    return;
  }
  if (ctx.resource->virtual_items) {
    // Computed on each read, and small: rendered whole.
    Result<nlohmann::json> list =
        ctx.registry->List(*ctx.resource, ctx.info->ns, *opts);
    if (!list.ok()) return WriteError(res, list.status());
    Result<nlohmann::json> out =
        Render(ctx, std::move(list).value(), /*is_list=*/true);
    if (!out.ok()) return WriteError(res, out.status());
    return WriteEncoded(res, 200, *out, ctx.output);
  }
  const bool paged = opts->limit > 0;
  if (!ctx.output.table && ctx.output.encoding == Encoding::kJson) {
    auto writer = ctx.registry->ListJson(*ctx.resource, ctx.info->ns, *opts);
    if (!writer.ok()) return WriteError(res, writer.status());
    return SendBody(*ctx.req, res, ctx.output.ContentType(),
                    std::make_unique<JsonListSource>(
                        *ctx.resource, std::move(writer).value(), paged));
  }
  TableOptions table;
  if (ctx.output.table) {
    Result<TableOptions> t = TableOptionsFor(ctx);
    if (!t.ok()) return WriteError(res, t.status());
    table = *t;
  }
  auto reader =
      ctx.registry->ListServedChunks(*ctx.resource, ctx.info->ns, *opts);
  if (!reader.ok()) return WriteError(res, reader.status());
  SendBody(*ctx.req, res, ctx.output.ContentType(),
           std::make_unique<RenderedListSource>(ctx, std::move(reader).value(),
                                                table, paged));
}

}  // namespace kmock::server
