// Fuzz target: everything the server reads from a request line and its
// headers before a handler runs. The input is a small request:
//
//   <METHOD> <path>[?<query>]
//   <Accept header>
//   <Content-Type header>
//   <body, for DELETE options>
//
// The path is split and decoded as cpp-httplib does, then parsed into a
// RequestInfo; the query, parsed as the server parses it (Go's rules),
// feeds the list, watch, write and delete options
// (selectors and continue tokens included); the headers feed content
// negotiation.
#include <httplib.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/builtin_catalog.h"
#include "registry/continue_token.h"
#include "registry/object_codec.h"
#include "server/handlers/options.h"
#include "server/negotiation.h"
#include "server/query_params.h"
#include "server/request_info.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using namespace kmock;  // NOLINT(build/namespaces): a test entry point

std::string_view NextLine(std::string_view* text) {
  size_t nl = text->find('\n');
  std::string_view line = text->substr(0, nl);
  text->remove_prefix(nl == std::string_view::npos ? text->size() : nl + 1);
  return line;
}

void RunSelectors(const server::RequestInfo& info,
                  const registry::ListOptions& list) {
  if (!info.is_resource_request) return;
  const api::ResourceInfo* res = api::testing::BuiltinCatalog().Find(
      info.api_group, info.api_version, info.resource);
  if (!res) res = fuzz::LiveObject("pods").resource;
  auto filter =
      registry::MakeFilter(*res, list.label_selector, list.field_selector);
  if (filter.ok()) (void)filter->Matches(*res, fuzz::LiveObject("pods").object);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::AsText(data, size);
  std::string_view request_line = NextLine(&text);
  std::string accept(NextLine(&text));
  std::string content_type(NextLine(&text));
  std::string body(text);

  size_t space = request_line.find(' ');
  std::string method(request_line.substr(0, space));
  std::string target(space == std::string_view::npos
                         ? std::string_view()
                         : request_line.substr(space + 1));
  size_t q = target.find('?');
  httplib::Request req;
  req.method = method;
  req.path = httplib::detail::decode_url(target.substr(0, q), false);
  req.target = target;
  // As the server does before any handler runs (query_params.h).
  req.params = server::ParseQuery(server::RawQueryOf(target));
  req.headers.emplace("Accept", accept);
  req.headers.emplace("Content-Type", content_type);
  req.headers.emplace("User-Agent", "kubectl/v1.33.1 (linux/amd64)");

  bool watch = req.has_param("watch") &&
               server::IsTrueParam(req.get_param_value("watch"));
  server::RequestInfo info =
      server::ParseRequestInfo(req.method, req.path, watch);

  registry::UserInfo user;
  user.name = "kubernetes-admin";
  if (auto list = server::ListOptionsFrom(req); list.ok()) {
    RunSelectors(info, *list);
    if (!list->continue_token.empty())
      (void)registry::DecodeContinue(list->continue_token);
    (void)registry::ParseResourceVersion(list->resource_version);
  }
  (void)server::WatchOptionsFrom(req, info);
  (void)server::TimeoutSecondsFrom(req);
  (void)server::WriteOptionsFrom(req, user, "PatchOptions");
  (void)server::DeleteRequestFrom(req, body, user);

  (void)server::ParseAccept(accept);
  (void)server::NegotiateOutput(accept, /*allow_table=*/true);
  (void)server::NegotiateDiscovery(accept);
  (void)server::MediaType(content_type);
  (void)server::PatchTypeOf(content_type);
  return 0;
}
