// Crash-safe file writes for the PKI directory: a temporary file in the
// same directory, fsync, chmod, rename over the target, fsync the directory.
// A reader sees either the old or the new contents, never a torn file.
//
// Thread safety: free functions; concurrent writers of one path each
// produce a whole file (last rename wins).
#ifndef KMOCK_CERTS_ATOMIC_FILE_H_
#define KMOCK_CERTS_ATOMIC_FILE_H_

#include <sys/types.h>

#include <string>

#include "common/status.h"

namespace kmock::certs {

// Writes `data` to `path` atomically with permission bits `mode`.
Status WriteFileAtomically(const std::string& path, const std::string& data,
                           mode_t mode);

// Reads a whole file. kNotFound when it does not exist.
Result<std::string> ReadWholeFile(const std::string& path);

// Creates `dir` and missing parents with `mode` (existing ones untouched).
Status MakeDirs(const std::string& dir, mode_t mode);

}  // namespace kmock::certs

#endif  // KMOCK_CERTS_ATOMIC_FILE_H_
