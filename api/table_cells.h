// Table cells from data: turns a resource's printer columns (a JSONPath, a
// built-in cell such as `age` or `count`, or a cell computed by kind code,
// see api/resources/README.md) into the function that prints one row.
//
// Thread safety: the compiled row function is immutable and safe from any
// thread; the table of named cells is built once and read-only after.
#ifndef KMOCK_API_TABLE_CELLS_H_
#define KMOCK_API_TABLE_CELLS_H_

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/resource.h"
#include "common/clock.h"
#include "common/status.h"

namespace kmock::api {

// A cell computed by kind code from the whole object.
using NamedCell = nlohmann::json (*)(const nlohmann::json& obj, TimePoint now);

// Every named cell kind code provides ("podStatus", "servicePorts", ...).
const std::map<std::string, NamedCell, std::less<>>& NamedCells();

using RowFunction = std::function<std::vector<nlohmann::json>(
    const nlohmann::json&, TimePoint)>;

// The row printer of `columns`. An unknown cell name or a bad JSONPath is an
// error naming the column.
Result<RowFunction> CompileRow(const std::vector<PrinterColumn>& columns);

}  // namespace kmock::api

#endif  // KMOCK_API_TABLE_CELLS_H_
