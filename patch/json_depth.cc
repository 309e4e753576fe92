#include "patch/json_depth.h"

#include <string>
#include <utility>
#include <vector>

namespace kmock::patch {

bool DeeperThan(const nlohmann::json& value, size_t max_depth) {
  std::vector<std::pair<const nlohmann::json*, size_t>> stack;
  stack.emplace_back(&value, 0);
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    if (!node->is_structured()) continue;
    if (depth + 1 > max_depth) return true;
    for (const auto& child : *node) stack.emplace_back(&child, depth + 1);
  }
  return false;
}

Status CheckDepth(const nlohmann::json& value, const char* what) {
  if (!DeeperThan(value, kMaxPatchDepth)) return Status::Ok();
  return BadRequestError(std::string(what) + " nests deeper than " +
                         std::to_string(kMaxPatchDepth) + " levels");
}

}  // namespace kmock::patch
