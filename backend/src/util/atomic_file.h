#pragma once
// Files that are either the old version or the new one, never half of each: write to a temporary file in the
// same folder ("<name>.tmp.<pid>"), fsync it, rename it over the target, then fsync the folder. Every one of
// those steps is checked: a failure removes the temporary file, leaves the target as it was and throws
// FileWriteError, whose message names the file, how many bytes were being written and why (a full disk says
// so).

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

#include "workbench/errors.h"

namespace wb {

class FileWriteError : public UserError {
 public:
  FileWriteError(const std::string& what, std::string hint, int error_number)
      : UserError(what, std::move(hint)), m_error_number(error_number) {}
  // errno of the step that failed (ENOSPC for a full disk).
  int errorNumber() const { return m_error_number; }

 private:
  int m_error_number;
};

void writeFileAtomically(const std::string& path, const std::string& contents);
// The pieces one after the other, without joining them first (a checkpoint's header, tensors and checksum).
void writeFileAtomically(const std::string& path, std::initializer_list<std::string_view> pieces);
// For writers that need a path (torch's archives): `write` fills the temporary path it is given. Its
// exceptions pass through (the temporary file removed); the fsync, rename and folder fsync after it are
// checked.
void writeFileAtomically(const std::string& path, const std::function<void(const std::string& tmp)>& write);

// The error for a file that is appended to (logs, metrics) when a write or flush of it failed with `error`
// (errno; a full disk says so). What was appended before stays.
FileWriteError appendFailure(const std::string& path, int error);

// Whether `file_name` is a temporary file of writeFileAtomically ("<name>.tmp.<digits>").
bool isAtomicTempFile(const std::string& file_name);
// Removes the temporary files in `folder` (not below it) left by a writer that is gone (killed mid-write):
// those of a process id that no longer runs on this machine. Best effort; returns how many were removed.
int removeStaleTempFiles(const std::string& folder);

}  // namespace wb
