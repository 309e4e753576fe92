#include "common/fast_json.h"

#include <simdjson.h>

#include <cstdint>
#include <string>

namespace kmock {

namespace {

using nlohmann::json;

json Build(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
      json out = json::object();
      auto& members = *out.get_ptr<json::object_t*>();
      for (auto [key, value] : simdjson::dom::object(e)) {
        members.insert_or_assign(std::string(key), Build(value));
      }
      return out;
    }
    case simdjson::dom::element_type::ARRAY: {
      json out = json::array();
      auto& items = *out.get_ptr<json::array_t*>();
      for (simdjson::dom::element item : simdjson::dom::array(e)) {
        items.push_back(Build(item));
      }
      return out;
    }
    case simdjson::dom::element_type::STRING:
      return json(std::string(std::string_view(e)));
    case simdjson::dom::element_type::INT64: {
      int64_t v = int64_t(e);
      // nlohmann keeps a number without a minus sign unsigned.
      if (v >= 0) return json(static_cast<uint64_t>(v));
      return json(v);
    }
    case simdjson::dom::element_type::UINT64:
      return json(uint64_t(e));
    case simdjson::dom::element_type::DOUBLE:
      return json(double(e));
    case simdjson::dom::element_type::BOOL:
      return json(bool(e));
    case simdjson::dom::element_type::NULL_VALUE:
      return json(nullptr);
  }
  return json(nullptr);
}

}  // namespace

json ParseJson(std::string_view text) {
  thread_local simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root) == simdjson::SUCCESS) return Build(root);
  return json::parse(text, nullptr, false);
}

}  // namespace kmock
