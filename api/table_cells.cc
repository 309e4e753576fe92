#include "api/table_cells.h"

#include <memory>

#include "api/json_path.h"
#include "api/kinds/util.h"
#include "api/kinds/workload_common.h"

namespace kmock::api {

using nlohmann::json;

namespace {

using CellFn = std::function<json(const json& obj, TimePoint now)>;

// The first match as a cell: strings, numbers and booleans as they are
// (kubectl prints booleans as true/false), anything else as its JSON text;
// nothing found is "".
json Plain(const json* v) {
  if (v == nullptr || v->is_null()) return "";
  if (v->is_string() || v->is_number() || v->is_boolean()) return *v;
  return v->dump();
}

std::string Text(const json* v) {
  json p = Plain(v);
  if (p.is_boolean()) return p.get<bool>() ? "true" : "false";
  return p.is_string() ? p.get<std::string>() : p.dump();
}

Result<std::vector<JsonPath>> ParsePaths(const std::string& spec) {
  std::vector<JsonPath> out;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t plus = spec.find('+', start);
    std::string one = spec.substr(
        start, plus == std::string::npos ? std::string::npos : plus - start);
    auto p = JsonPath::Parse(one);
    if (!p.ok()) return p.status();
    out.push_back(std::move(*p));
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  return out;
}

Result<CellFn> CompileCell(const PrinterColumn& c) {
  const std::string& cell = c.cell;
  if (!cell.empty()) {
    const auto& named = NamedCells();
    auto it = named.find(cell);
    if (it != named.end()) {
      NamedCell fn = it->second;
      return CellFn(
          [fn](const json& obj, TimePoint now) { return fn(obj, now); });
    }
  }
  auto parsed = ParsePaths(c.json_path.empty() ? "." : c.json_path);
  if (!parsed.ok()) return parsed.status();
  auto paths =
      std::make_shared<const std::vector<JsonPath>>(std::move(*parsed));
  const JsonPath& first = paths->front();
  auto path = std::make_shared<const JsonPath>(first);
  if (cell.empty()) {
    return CellFn(
        [path](const json& obj, TimePoint) { return Plain(path->First(obj)); });
  }
  if (cell == "age") {
    return CellFn([path](const json& obj, TimePoint now) -> json {
      const json* v = path->First(obj);
      return kinds::Since(v && v->is_string() ? v->get<std::string>() : "",
                          now);
    });
  }
  if (cell == "count") {
    return CellFn([paths](const json& obj, TimePoint) -> json {
      int64_t n = 0;
      for (const JsonPath& p : *paths) {
        const json* v = p.First(obj);
        if (v && (v->is_object() || v->is_array())) n += v->size();
      }
      return n;
    });
  }
  if (cell == "int") {
    return CellFn([path](const json& obj, TimePoint) -> json {
      const json* v = path->First(obj);
      return v && v->is_number_integer() ? v->get<int64_t>() : 0;
    });
  }
  if (cell == "join" || cell == "orNone" || cell == "orUnknown") {
    const std::string fallback = cell == "orUnknown" ? "<unknown>" : "<none>";
    return CellFn([path, fallback](const json& obj, TimePoint) -> json {
      std::string out;
      for (const json* v : path->Evaluate(obj)) {
        std::string t = Text(v);
        if (t.empty()) continue;
        if (!out.empty()) out += ",";
        out += t;
      }
      return out.empty() ? fallback : out;
    });
  }
  if (cell == "labelSelector") {
    return CellFn([path](const json& obj, TimePoint) -> json {
      const json* v = path->First(obj);
      std::string text = kinds::LabelSelectorString(v ? *v : json());
      return text.empty() ? "<none>" : text;
    });
  }
  return Status(StatusCode::kInternal,
                "column " + c.name + ": unknown cell " + cell);
}

}  // namespace

Result<RowFunction> CompileRow(const std::vector<PrinterColumn>& columns) {
  auto cells = std::make_shared<std::vector<CellFn>>();
  for (const PrinterColumn& c : columns) {
    auto fn = CompileCell(c);
    if (!fn.ok()) {
      return Status(StatusCode::kInternal,
                    "column " + c.name + ": " + fn.status().message());
    }
    cells->push_back(std::move(*fn));
  }
  return RowFunction([cells](const json& obj, TimePoint now) {
    std::vector<json> row;
    row.reserve(cells->size());
    for (const CellFn& fn : *cells) row.push_back(fn(obj, now));
    return row;
  });
}

}  // namespace kmock::api
