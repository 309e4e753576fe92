// Per-socket marks that change how the HTTP library's wait for a
// keep-alive connection's next request ends.
//
// Between two requests the library waits by polling the socket for input.
// That wait is wrong in two cases, and a mark set after an answer fixes
// each:
// - pending TLS input: requests a client sent together (pipelined, or
//   written back to back) may have been read into the TLS layer's buffer
//   with the previous one, so the socket shows nothing to read and the
//   library would wait until the keep-alive timeout with a request in hand.
//   The next poll of a marked socket returns "readable" at once.
// - closing: the answer said "Connection: close" (or a body was left
//   unread), which the library does not act on: it would read whatever
//   follows as the next request. The next poll of a marked socket fails, so
//   the library closes the connection instead.
// This file defines poll(2) for the process: a poll of one marked socket
// for input answers as above (and clears a pending-input mark); every other
// call goes to the C library's poll unchanged.
//
// Thread safety: marks are atomic; every function is safe from any thread.
// Marks are cleared when the connection's TLS object is freed
// (ClearConnectionMarks), before its descriptor can be reused.
#ifndef KMOCK_SERVER_CONNECTION_MARKS_H_
#define KMOCK_SERVER_CONNECTION_MARKS_H_

namespace kmock::server {

// Marks are kept for descriptors below this; others are never marked.
inline constexpr int kMaxMarkedFd = 1 << 20;

void MarkPendingTlsInput(int fd);
void MarkClosing(int fd);
void ClearConnectionMarks(int fd);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_CONNECTION_MARKS_H_
