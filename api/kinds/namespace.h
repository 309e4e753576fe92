// core/v1 Namespace: Table columns and cells, the status.phase field
// selector, defaulting (the kubernetes.io/metadata.name label, the
// "kubernetes" finalizer and phase Active on create) and the main, status
// and finalize strategies.
//
// Thread safety: pure functions and stateless strategies; safe from any
// thread.
#ifndef KMOCK_API_KINDS_NAMESPACE_H_
#define KMOCK_API_KINDS_NAMESPACE_H_

#include <vector>

#include "api/resource.h"

namespace kmock::api::kinds {

std::vector<SelectableField> NamespaceSelectableFields();

const Strategy* NamespaceStrategy();
const Strategy* NamespaceStatusStrategy();
// namespaces/finalize: takes spec.finalizers from the request, keeps the
// stored status and everything else.
const Strategy* NamespaceFinalizeStrategy();

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_NAMESPACE_H_
