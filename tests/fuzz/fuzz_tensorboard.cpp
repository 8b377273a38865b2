// Fuzz target: the TensorBoard event writer (util/tensorboard_writer), fed what the engine feeds it — steps,
// wall times, tags and values of any size and bit pattern (NaN, infinities, doubles beyond float's range,
// tags with any bytes) — and its file read back with an independent TFRecord + protobuf decoder here.
// Input: a run of events, each: u8 scalar count (mod 8), i64 step, f64 wall time, then per scalar a u8 tag
// length, the tag bytes and an f64 value; the input ending mid-event ends the run.
// Promise: the file is a valid TFRecord stream (lengths and masked CRC-32Cs hold), its first record is the
// "brain.Event:2" version, then one Event per call with the step, the wall time and each (tag, float(value))
// exactly (a double beyond float's range as that side's infinity) — never a crash.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_support.h"
#include "util/tensorboard_writer.h"

namespace {

using Scalars = std::vector<std::pair<std::string, double>>;
struct Written {
  int64_t step;
  double wall;
  Scalars scalars;
};

class Cursor {
 public:
  Cursor(const uint8_t* data, size_t size) : m_data(data), m_size(size) {}
  bool take(void* out, size_t n) {
    if (m_size - m_at < n) return false;
    std::memcpy(out, m_data + m_at, n);
    m_at += n;
    return true;
  }
  bool done() const { return m_at >= m_size; }

 private:
  const uint8_t* m_data;
  size_t m_size;
  size_t m_at = 0;
};

// A protobuf reader just big enough for tensorflow.Event / Summary / Summary.Value.
class Proto {
 public:
  explicit Proto(std::string bytes) : m_bytes(std::move(bytes)) {}
  bool done() const { return m_at >= m_bytes.size(); }
  uint64_t varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (done()) wb::fuzz::fuzzFail("a varint runs past the end");
      const auto byte = static_cast<uint8_t>(m_bytes[m_at++]);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return value;
    }
    wb::fuzz::fuzzFail("a varint longer than ten bytes");
  }
  std::string bytes(size_t n) {
    if (m_bytes.size() - m_at < n) wb::fuzz::fuzzFail("a field runs past the end");
    std::string out = m_bytes.substr(m_at, n);
    m_at += n;
    return out;
  }
  uint64_t fixed(int n) {
    const std::string raw = bytes(static_cast<size_t>(n));
    uint64_t value = 0;
    for (int i = 0; i < n; ++i) value |= static_cast<uint64_t>(static_cast<uint8_t>(raw[i])) << (8 * i);
    return value;
  }

 private:
  std::string m_bytes;
  size_t m_at = 0;
};

double asDouble(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d;
}

uint32_t floatBits(double value) {
  // What the file must hold for `value`: float's nearest, or an infinity beyond float's range.
  float f;
  if (std::isnan(value))
    f = static_cast<float>(value);
  else if (value > 3.4028234663852886e38)
    f = INFINITY;
  else if (value < -3.4028234663852886e38)
    f = -INFINITY;
  else
    f = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

bool sameDouble(double a, double b) {
  return std::memcmp(&a, &b, sizeof(a)) == 0;
}

void checkEvent(const std::string& record, const Written& expected) {
  Proto event(record);
  bool saw_wall = false, saw_step = false;
  Scalars seen;
  std::vector<uint32_t> seen_bits;
  while (!event.done()) {
    const uint64_t key = event.varint();
    if (key == ((1 << 3) | 1)) {
      saw_wall = sameDouble(asDouble(event.fixed(8)), expected.wall);
    } else if (key == ((2 << 3) | 0)) {
      saw_step = static_cast<int64_t>(event.varint()) == expected.step;
    } else if (key == ((5 << 3) | 2)) {
      Proto summary(event.bytes(event.varint()));
      while (!summary.done()) {
        if (summary.varint() != ((1 << 3) | 2)) wb::fuzz::fuzzFail("a Summary field other than value");
        Proto value(summary.bytes(summary.varint()));
        std::string tag;
        uint32_t bits = 0;
        while (!value.done()) {
          const uint64_t field = value.varint();
          if (field == ((1 << 3) | 2))
            tag = value.bytes(value.varint());
          else if (field == ((2 << 3) | 5))
            bits = static_cast<uint32_t>(value.fixed(4));
          else
            wb::fuzz::fuzzFail("an unexpected Summary.Value field");
        }
        seen.emplace_back(tag, 0.0);
        seen_bits.push_back(bits);
      }
    } else {
      wb::fuzz::fuzzFail("an unexpected Event field");
    }
  }
  if (!saw_wall || !saw_step)
    wb::fuzz::fuzzFail("an event's step or wall time differs from what was written");
  if (seen.size() != expected.scalars.size()) wb::fuzz::fuzzFail("an event lost or gained scalars");
  for (size_t i = 0; i < seen.size(); ++i) {
    if (seen[i].first != expected.scalars[i].first) wb::fuzz::fuzzFail("a tag differs from what was written");
    if (seen_bits[i] != floatBits(expected.scalars[i].second)) wb::fuzz::fuzzFail("a value differs");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wb;
  if (size > 64 * 1024) return 0;
  Cursor in(data, size);
  std::vector<Written> written;
  while (!in.done()) {
    uint8_t count = 0;
    Written event{};
    if (!in.take(&count, 1) || !in.take(&event.step, 8) || !in.take(&event.wall, 8)) break;
    bool complete = true;
    for (int i = 0; i < (count & 7) && complete; ++i) {
      uint8_t length = 0;
      double value = 0;
      std::string tag;
      complete = in.take(&length, 1);
      if (complete) {
        tag.resize(length);
        complete = in.take(tag.data(), length) && in.take(&value, 8);
      }
      if (complete) event.scalars.emplace_back(tag, value);
    }
    if (!complete) break;
    written.push_back(std::move(event));
  }

  const std::string path = (fuzz::scratchDir() / "events.out.tfevents.fuzz").string();
  std::remove(path.c_str());
  {
    TensorBoardWriter writer(path);
    for (const Written& event : written) writer.addScalars(event.step, event.wall, event.scalars);
    writer.flush();
  }

  std::ifstream file(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  size_t at = 0;
  std::vector<std::string> records;
  while (at < bytes.size()) {
    if (bytes.size() - at < 12) fuzz::fuzzFail("a record header is cut off");
    uint64_t length = 0;
    for (int i = 0; i < 8; ++i)
      length |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[at + i])) << (8 * i);
    uint32_t length_crc = 0;
    for (int i = 0; i < 4; ++i)
      length_crc |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 8 + i])) << (8 * i);
    if (length_crc != maskedCrc32c(bytes.data() + at, 8)) fuzz::fuzzFail("a record's length CRC is wrong");
    at += 12;
    if (bytes.size() - at < length + 4) fuzz::fuzzFail("a record is cut off");
    const std::string record = bytes.substr(at, length);
    uint32_t crc = 0;
    for (int i = 0; i < 4; ++i)
      crc |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + length + i])) << (8 * i);
    if (crc != maskedCrc32c(record.data(), record.size())) fuzz::fuzzFail("a record's CRC is wrong");
    records.push_back(record);
    at += length + 4;
  }
  size_t expected_events = 0;
  for (const Written& event : written) expected_events += event.scalars.empty() ? 0 : 1;
  if (records.size() != 1 + expected_events) fuzz::fuzzFail("the file holds another number of records");
  if (records[0].find("brain.Event:2") == std::string::npos) fuzz::fuzzFail("no version record first");
  size_t r = 1;
  for (const Written& event : written) {
    if (event.scalars.empty()) continue;
    checkEvent(records[r++], event);
  }
  return 0;
}
