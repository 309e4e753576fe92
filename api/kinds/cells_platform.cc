#include "api/kinds/cells.h"

namespace kmock::api::kinds {

void AddPlatformCells(CellTable* /*table*/) {}

}  // namespace kmock::api::kinds
