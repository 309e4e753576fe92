// Query strings parsed as kube-apiserver's Go runtime parses them
// (net/url.ParseQuery): pairs split at '&', each pair split at its FIRST
// '=', '+' and %XX unescaped; a pair with a bad escape or a ';' is dropped;
// repeated keys keep every value in order. The HTTP library splits a pair
// at its last '=' (so `labelSelector=a=1` read as "1") and drops repeated
// identical pairs; the server replaces its parse with this one before any
// handler runs.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_SERVER_QUERY_PARAMS_H_
#define KMOCK_SERVER_QUERY_PARAMS_H_

#include <httplib.h>

#include <optional>
#include <string>
#include <string_view>

namespace kmock::server {

// The parameters of a raw query (the part after '?', without it).
httplib::Params ParseQuery(std::string_view raw_query);

// The raw query of a request target ("/api/v1/pods?watch=1" -> "watch=1"),
// without any fragment.
std::string_view RawQueryOf(std::string_view target);

// Go's url.QueryUnescape: nullopt for a malformed escape.
std::optional<std::string> QueryUnescape(std::string_view s);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_QUERY_PARAMS_H_
