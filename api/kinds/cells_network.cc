#include "api/kinds/cells.h"

namespace kmock::api::kinds {

void AddNetworkCells(CellTable* /*table*/) {}

}  // namespace kmock::api::kinds
