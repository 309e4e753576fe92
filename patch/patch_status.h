// The Status values the patch functions return, in kube-apiserver's shapes.
//
// kube-apiserver (k8s.io/apiserver pkg/endpoints/handlers/patch.go, v1.33)
// reports patch failures in three ways:
//  - 400 BadRequest with the decoder's or patcher's text as the message
//    (malformed patch bodies, bad directive formats);
//  - 422 built by errors.NewGenericServerResponse(422, ...): reason Invalid,
//    the fixed message "the server rejected our request due to an error in
//    our request" and empty details; the underlying text is dropped (JSON
//    Patch operations that fail, strategic "lists of lists");
//  - 500 for plain Go errors that nobody converted (most strategic merge
//    errors, e.g. "map: map[image:x] does not contain declared merge key:
//    name"): code 500, the error text as message and NO reason (Go's
//    StatusReasonUnknown is ""), so kubectl prints "Error from server: ...".
//    We return kInternal with reason kReasonUnknown; the HTTP layer must
//    write no "reason" field for it.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_PATCH_PATCH_STATUS_H_
#define KMOCK_PATCH_PATCH_STATUS_H_

#include <string>

#include "common/status.h"

namespace kmock::patch {

// Marks a 500 whose Kubernetes reason is empty (see above).
inline constexpr char kReasonUnknown[] = "Unknown";

// The message of every 422 built by NewGenericServerResponse.
inline constexpr char kRejectedMessage[] =
    "the server rejected our request due to an error in our request";

// 500, no reason, message = the Go error text.
Status UnconvertedError(std::string message);

// 422 Invalid with kRejectedMessage (the detail is not sent, as upstream).
Status RejectedError();

}  // namespace kmock::patch

#endif  // KMOCK_PATCH_PATCH_STATUS_H_
