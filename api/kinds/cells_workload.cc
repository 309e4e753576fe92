#include "api/kinds/cells.h"

namespace kmock::api::kinds {

void AddWorkloadCells(CellTable* /*table*/) {}

}  // namespace kmock::api::kinds
