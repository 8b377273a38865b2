#pragma once
// A TensorBoard event file that `tensorboard --logdir` reads: TFRecord framing (u64 length, masked CRC-32C of
// the length, the record, masked CRC-32C of the record) around protobuf-encoded tensorflow.Event messages,
// written by hand (five fields of two messages do not justify a protobuf dependency):
//   Event   { double wall_time = 1; int64 step = 2; string file_version = 3; Summary summary = 5; }
//   Summary { repeated Value value = 1; }   Value { string tag = 1; float simple_value = 2; }

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace wb {

class TensorBoardWriter {
 public:
  // Appends to `path`; a new or empty file starts with the "brain.Event:2" version record.
  explicit TensorBoardWriter(const std::string& path);
  ~TensorBoardWriter();
  TensorBoardWriter(const TensorBoardWriter&) = delete;
  TensorBoardWriter& operator=(const TensorBoardWriter&) = delete;

  // One event holding several scalars of the same step.
  void addScalars(int64_t step, double wall_time, const std::vector<std::pair<std::string, double>>& scalars);
  void flush();
  const std::string& path() const { return m_path; }

 private:
  void writeRecord(const std::string& record);
  std::string m_path;
  std::FILE* m_file = nullptr;
};

// The pieces, public for tests.
uint32_t crc32c(const void* data, size_t size);
uint32_t maskedCrc32c(const void* data, size_t size);
std::string tfRecord(const std::string& record);
std::string scalarEvent(int64_t step, double wall_time,
                        const std::vector<std::pair<std::string, double>>& scalars);
std::string fileVersionEvent(double wall_time);

}  // namespace wb
