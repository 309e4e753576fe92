// Named Table cells of the kinds beyond the core workloads, grouped by
// area; api/kinds/named_cells.cc puts them all in one table. Each Add...
// function adds its cells under the names api/resources/*.yaml use.
//
// Thread safety: called once while the table is built.
#ifndef KMOCK_API_KINDS_CELLS_H_
#define KMOCK_API_KINDS_CELLS_H_

#include <map>
#include <string>

#include "api/table_cells.h"

namespace kmock::api::kinds {

using CellTable = std::map<std::string, NamedCell, std::less<>>;

// core/v1 configuration, storage and replication controllers.
void AddConfigCells(CellTable* table);
// apps/v1 DaemonSets, StatefulSets, ControllerRevisions; batch; HPA; PDB.
void AddWorkloadCells(CellTable* table);
// networking, discovery, rbac, scheduling, certificates.
void AddNetworkCells(CellTable* table);
// storage, admissionregistration, apiregistration, flowcontrol.
void AddPlatformCells(CellTable* table);

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_CELLS_H_
