// Shared pieces of the libFuzzer targets in tests/fuzz: turning the fuzzer's
// bytes into text and JSON the way the server does, the live objects that
// patches and applies modify, and the registry's write pipeline (decode
// checks, strategy, validation, managedFields, storage encoding, Table
// cells) replayed without a store, so that a fuzzed body reaches every
// function a real request would.
//
// Every function here may only fail by returning: a crash, a sanitizer
// report or an exception escaping is a bug in the code under test.
//
// Thread safety: libFuzzer calls a target from one thread; the live objects
// are built once and only read.
#ifndef KMOCK_TESTS_FUZZ_FUZZ_UTIL_H_
#define KMOCK_TESTS_FUZZ_FUZZ_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource.h"
#include "api/schema.h"

namespace kmock::fuzz {

// The fuzzer's input as text (bytes as they are, not necessarily UTF-8).
std::string_view AsText(const uint8_t* data, size_t size);

// Parses text as the registry parses a patch body (no exceptions); nullopt
// when it is not JSON.
std::optional<nlohmann::json> ParseJson(std::string_view text);

// Splits "<resource>\n<rest>" when the first line names a resource of
// LiveObjects() ("pods", "deployments", ...); otherwise the resource is
// "pods" and rest is the whole text. Lets one corpus file pick the object a
// patch applies to while staying a plain request body.
struct Targeted {
  std::string resource;
  std::string_view rest;
};
Targeted SplitTarget(std::string_view text);

// A live object in its embedded JSON text (fuzz_live_objects.cc).
struct LiveText {
  const char* resource;  // plural
  const char* json;
};
const std::vector<LiveText>& LiveTexts();

// A live object ready to be modified.
struct Live {
  const api::ResourceInfo* resource;
  const api::Type* type;  // its schema root
  nlohmann::json object;
};
// The first live object of that plural (REQUIRES: one exists).
const Live& LiveObject(std::string_view plural);

// The catalog entry that serves apiVersion/kind (nullptr if none).
const api::ResourceInfo* ResourceFor(const nlohmann::json& obj);

// What the registry does with a decoded create body before it reaches the
// store: decode checks (fieldValidation Strict), system metadata, defaults,
// managedFields, PrepareForCreate, metadata and strategy validation, the
// storage encoding and decoding, and the Table row.
void RunCreatePipeline(const api::ResourceInfo& res, nlohmann::json obj);

// The same for an update (a PUT or a patch result) of `old` to `obj`.
// track_fields is false for server-side apply, which set managedFields.
void RunUpdatePipeline(const api::ResourceInfo& res, const nlohmann::json& old,
                       nlohmann::json obj, bool track_fields);

}  // namespace kmock::fuzz

#endif  // KMOCK_TESTS_FUZZ_FUZZ_UTIL_H_
