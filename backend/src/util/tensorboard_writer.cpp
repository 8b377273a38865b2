#include "util/tensorboard_writer.h"

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "util/atomic_file.h"
#include "workbench/errors.h"

namespace wb {
namespace {

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum TFRecord uses.
std::array<uint32_t, 256> makeCrc32cTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1) ? 0x82F63B78u : 0u);
    table[i] = crc;
  }
  return table;
}

void putVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void putFixed(std::string& out, uint64_t bits, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}

void putTag(std::string& out, uint32_t field, uint32_t wire_type) {
  putVarint(out, (field << 3) | wire_type);
}

void putBytes(std::string& out, uint32_t field, const std::string& bytes) {
  putTag(out, field, 2);
  putVarint(out, bytes.size());
  out += bytes;
}

void putDouble(std::string& out, uint32_t field, double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  putTag(out, field, 1);
  putFixed(out, bits, 8);
}

void putFloat(std::string& out, uint32_t field, float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  putTag(out, field, 5);
  putFixed(out, bits, 4);
}

}  // namespace

uint32_t crc32c(const void* data, size_t size) {
  static const std::array<uint32_t, 256> table = makeCrc32cTable();
  const auto* bytes = static_cast<const unsigned char*>(data);
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) crc = table[(crc ^ bytes[i]) & 0xff] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

uint32_t maskedCrc32c(const void* data, size_t size) {
  const uint32_t crc = crc32c(data, size);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

std::string tfRecord(const std::string& record) {
  std::string length;
  putFixed(length, record.size(), 8);
  std::string out = length;
  putFixed(out, maskedCrc32c(length.data(), length.size()), 4);
  out += record;
  putFixed(out, maskedCrc32c(record.data(), record.size()), 4);
  return out;
}

std::string fileVersionEvent(double wall_time) {
  std::string event;
  putDouble(event, 1, wall_time);
  putBytes(event, 3, "brain.Event:2");
  return event;
}

std::string scalarEvent(int64_t step, double wall_time,
                        const std::vector<std::pair<std::string, double>>& scalars) {
  std::string summary;
  for (const auto& [tag, value] : scalars) {
    std::string v;
    putBytes(v, 1, tag);
    putFloat(v, 2, static_cast<float>(value));  // beyond float's range: an infinity (IEEE)
    putBytes(summary, 1, v);
  }
  std::string event;
  putDouble(event, 1, wall_time);
  putTag(event, 2, 0);
  putVarint(event, static_cast<uint64_t>(step));
  putBytes(event, 5, summary);
  return event;
}

TensorBoardWriter::TensorBoardWriter(const std::string& path) : m_path(path) {
  m_file = std::fopen(path.c_str(), "ab");
  if (!m_file) {
    throw UserError("Could not open " + path + " for writing: " + std::strerror(errno),
                    "Check that output.runs_dir is writable.");
  }
  if (std::ftell(m_file) == 0) {
    std::fseek(m_file, 0, SEEK_END);
    if (std::ftell(m_file) == 0) {
      const double now =
          std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
      writeRecord(fileVersionEvent(now));
      flush();
    }
  }
}

TensorBoardWriter::~TensorBoardWriter() {
  if (m_file) std::fclose(m_file);
}

void TensorBoardWriter::addScalars(int64_t step, double wall_time,
                                   const std::vector<std::pair<std::string, double>>& scalars) {
  if (!scalars.empty()) writeRecord(scalarEvent(step, wall_time, scalars));
}

void TensorBoardWriter::writeRecord(const std::string& record) {
  const std::string framed = tfRecord(record);
  if (std::fwrite(framed.data(), 1, framed.size(), m_file) != framed.size()) {
    throw appendFailure(m_path, errno);
  }
}

void TensorBoardWriter::flush() {
  // stdio keeps the error of a buffered write until a flush: a full disk is seen here.
  if (std::fflush(m_file) != 0 || std::ferror(m_file)) throw appendFailure(m_path, errno);
}

}  // namespace wb
