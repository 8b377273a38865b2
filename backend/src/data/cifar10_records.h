#pragma once
// The record count of a CIFAR-10 batch file from its size alone, for probeDataShape.

#include <cstdint>
#include <string>

namespace wb {

// Throws DataError when the file is missing, empty or not a whole number of 3073-byte records.
int64_t cifar10RecordCount(const std::string& batch_file);

}  // namespace wb
