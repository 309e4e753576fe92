#include "api/kinds/cells.h"

namespace kmock::api::kinds {

void AddConfigCells(CellTable* /*table*/) {}

}  // namespace kmock::api::kinds
