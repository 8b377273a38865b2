#pragma once
// The loss became NaN or infinite: the weights are no longer usable.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace wb {

class NonFiniteLossError : public std::runtime_error {
 public:
  NonFiniteLossError(const std::string& what, int64_t step) : std::runtime_error(what), m_step(step) {}
  int64_t step() const { return m_step; }

 private:
  int64_t m_step;
};

}  // namespace wb
