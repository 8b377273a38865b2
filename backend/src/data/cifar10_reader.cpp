// CIFAR-10 binary version: each file is a run of 3073-byte records, one label byte (0..9) followed by
// 3072 pixel bytes in channel-major order (1024 red, 1024 green, 1024 blue, rows of 32).

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "data/cifar10_records.h"
#include "data/dataset_readers.h"
#include "workbench/errors.h"

namespace wb {

namespace {

constexpr int64_t kPixelBytes = 3 * 32 * 32;
constexpr int64_t kRecordBytes = 1 + kPixelBytes;
constexpr int64_t kClasses = 10;
constexpr int64_t kRecordsPerRead = 1024;
const char* kCifarRedownload = "the file is damaged or incomplete; extract cifar-10-binary.tar.gz again";

}  // namespace

int64_t cifar10RecordCount(const std::string& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw DataError(
        file + ": file not found",
        "download https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz and extract it into data.path");
  }
  const auto bytes = static_cast<int64_t>(std::filesystem::file_size(file, ec));
  if (ec || bytes == 0) {
    throw DataError(file + ": is empty; a CIFAR-10 batch holds 3073-byte records", kCifarRedownload);
  }
  if (bytes % kRecordBytes != 0) {
    throw DataError(file + ": size " + std::to_string(bytes) +
                        " bytes is not a multiple of the 3073-byte CIFAR-10 " + "record (" +
                        std::to_string(bytes / kRecordBytes) + " records and " +
                        std::to_string(bytes % kRecordBytes) + " bytes left over)",
                    kCifarRedownload);
  }
  return bytes / kRecordBytes;
}

namespace {

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

// Reads `records` records of `file` into the label and image memory starting at record `first`.
void readRecords(const std::string& file, int64_t records, uint8_t* labels, uint8_t* images) {
  std::unique_ptr<std::FILE, FileCloser> handle(std::fopen(file.c_str(), "rb"));
  if (!handle) {
    throw DataError(file + ": cannot open: " + std::strerror(errno), "check the file's permissions");
  }
  std::vector<uint8_t> chunk(static_cast<size_t>(kRecordsPerRead * kRecordBytes));
  for (int64_t done = 0; done < records;) {
    const int64_t count = std::min(kRecordsPerRead, records - done);
    const size_t want = static_cast<size_t>(count * kRecordBytes);
    if (std::fread(chunk.data(), 1, want, handle.get()) != want) {
      throw DataError(file + ": read error or file changed while reading", kCifarRedownload);
    }
    for (int64_t r = 0; r < count; ++r) {
      const uint8_t* record = chunk.data() + r * kRecordBytes;
      if (record[0] >= kClasses) {
        throw DataError(file + ": record " + std::to_string(done + r) + " has label " +
                            std::to_string(record[0]) + "; CIFAR-10 labels are 0..9",
                        "this is not a CIFAR-10 batch (CIFAR-100's binary format differs)");
      }
      labels[done + r] = record[0];
      std::memcpy(images + (done + r) * kPixelBytes, record + 1, kPixelBytes);
    }
    done += count;
  }
}

}  // namespace

RawSplit readCifar10(const std::vector<std::string>& batch_files) {
  if (batch_files.empty()) {
    throw DataError("no CIFAR-10 batch files given",
                    "data.path must hold data_batch_1.bin … and test_batch.bin");
  }
  // Sizes first: a bad file is reported before anything is allocated or read.
  std::vector<int64_t> counts;
  int64_t total = 0;
  for (const auto& file : batch_files) {
    counts.push_back(cifar10RecordCount(file));
    total += counts.back();
  }
  torch::Tensor images = torch::empty({total, 3, 32, 32}, torch::kUInt8);
  torch::Tensor labels = torch::empty({total}, torch::kUInt8);
  int64_t first = 0;
  for (size_t i = 0; i < batch_files.size(); ++i) {
    readRecords(batch_files[i], counts[i], labels.data_ptr<uint8_t>() + first,
                images.data_ptr<uint8_t>() + first * kPixelBytes);
    first += counts[i];
  }
  return RawSplit{images, labels.to(torch::kLong)};
}

}  // namespace wb
