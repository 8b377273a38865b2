#pragma once
// Errors a user can fix (a bad experiment, a missing or damaged file) are UserError: front ends show the
// message and exit with status 2. Everything else is a failure of the run.

#include <stdexcept>
#include <string>

namespace wb {

class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& what, std::string hint = {})
      : std::runtime_error(what), m_hint(std::move(hint)) {}
  const std::string& hint() const { return m_hint; }

 private:
  std::string m_hint;
};

// A dataset file that is missing, truncated, corrupt or inconsistent. The message names the file.
class DataError : public UserError {
 public:
  using UserError::UserError;
};

// A resume refused because the run's experiment.json changed since its checkpoint. The message names each
// change; resuming with force continues from the checkpoint with the file as it is now.
class ExperimentChangedError : public UserError {
 public:
  using UserError::UserError;
};

}  // namespace wb
