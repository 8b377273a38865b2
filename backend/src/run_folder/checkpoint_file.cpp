#include "run_folder/checkpoint_file.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>

#include "util/atomic_file.h"

namespace wb {
namespace {

constexpr char kMagic[8] = {'W', 'B', 'C', 'K', 'P', 'T', '0', '1'};

void putU64(std::string& out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t getU64(const std::string& in, size_t at) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i)
    value |= static_cast<uint64_t>(static_cast<unsigned char>(in[at + i])) << (8 * i);
  return value;
}

uint32_t crc32Of(const char* data, size_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib's length is a uInt: feed it in chunks so files over 4 GiB are covered too.
  constexpr size_t kChunk = 1u << 30;
  for (size_t done = 0; done < size; done += kChunk) {
    const size_t n = std::min(kChunk, size - done);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data + done), static_cast<uInt>(n));
  }
  return static_cast<uint32_t>(crc);
}

std::string readHead(const std::string& path, size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CorruptCheckpoint(path + " cannot be read");
  std::string head(bytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(bytes));
  head.resize(static_cast<size_t>(in.gcount()));
  return head;
}

nlohmann::json parseMeta(const std::string& path, const std::string& text) {
  nlohmann::json meta = nlohmann::json::parse(text, nullptr, false);
  if (!meta.is_object()) throw CorruptCheckpoint(path + " has a damaged header");
  return meta;
}

}  // namespace

CheckpointFileCheck writeCheckpointFile(const std::string& path, const nlohmann::json& meta,
                                        const std::string& payload) {
  const std::string meta_text = meta.dump();
  std::string head(kMagic, sizeof(kMagic));
  putU64(head, meta_text.size());
  head += meta_text;
  putU64(head, payload.size());
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(head.data()), static_cast<uInt>(head.size()));
  const uint32_t payload_crc = crc32Of(payload.data(), payload.size());
  crc = crc32_combine(crc, payload_crc, static_cast<z_off_t>(payload.size()));
  std::string tail;
  for (int i = 0; i < 4; ++i) tail.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  // Checked write, fsync, close and rename (util/atomic_file): a short file is never renamed into place.
  writeFileAtomically(path, {std::string_view(head), std::string_view(payload), std::string_view(tail)});
  return {head.size() + payload.size() + tail.size(), static_cast<uint32_t>(crc)};
}

nlohmann::json readCheckpointMeta(const std::string& path) {
  std::string head = readHead(path, 16);
  if (head.size() < 16 || std::memcmp(head.data(), kMagic, sizeof(kMagic)) != 0) {
    throw CorruptCheckpoint(path + " is not a workbench checkpoint (bad header)");
  }
  const uint64_t meta_size = getU64(head, 8);
  if (meta_size > (64u << 20)) throw CorruptCheckpoint(path + " has a damaged header");
  head = readHead(path, 16 + meta_size);
  if (head.size() < 16 + meta_size) throw CorruptCheckpoint(path + " is truncated");
  return parseMeta(path, head.substr(16, meta_size));
}

CheckpointContents readCheckpointFile(const std::string& path, const CheckpointFileCheck* expected) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CorruptCheckpoint(path + " cannot be read");
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() < 28 || std::memcmp(file.data(), kMagic, sizeof(kMagic)) != 0) {
    throw CorruptCheckpoint(path + " is not a workbench checkpoint (bad header or truncated)");
  }
  const uint64_t meta_size = getU64(file, 8);
  if (meta_size > file.size() || 16 + meta_size + 8 + 4 > file.size())
    throw CorruptCheckpoint(path + " is truncated");
  const uint64_t payload_size = getU64(file, 16 + meta_size);
  const uint64_t payload_at = 16 + meta_size + 8;
  if (payload_size > file.size() || payload_at + payload_size + 4 != file.size()) {
    throw CorruptCheckpoint(path + " is truncated or has trailing bytes");
  }
  const size_t body = file.size() - 4;
  uint32_t stored = 0;
  for (int i = 0; i < 4; ++i)
    stored |= static_cast<uint32_t>(static_cast<unsigned char>(file[body + i])) << (8 * i);
  if (crc32Of(file.data(), body) != stored) throw CorruptCheckpoint(path + " is damaged (checksum mismatch)");
  if (expected && (file.size() != expected->bytes || stored != expected->crc32)) {
    throw CorruptCheckpoint(path + " is not the file its checkpoint names (another length or checksum)");
  }
  CheckpointContents contents;
  contents.meta = parseMeta(path, file.substr(16, meta_size));
  contents.payload = file.substr(payload_at, payload_size);
  return contents;
}

void verifyCheckpointFile(const std::string& path, const CheckpointFileCheck& expected) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CorruptCheckpoint(path + " is missing or cannot be read");
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec || size != expected.bytes) {
    throw CorruptCheckpoint(path + " is truncated or was replaced (" + std::to_string(ec ? 0 : size) +
                            " bytes, its checkpoint names " + std::to_string(expected.bytes) + ")");
  }
  if (size < 28) throw CorruptCheckpoint(path + " is truncated");
  uLong crc = crc32(0L, Z_NULL, 0);
  std::string piece(std::min<uint64_t>(size - 4, 8u << 20), '\0');
  for (uint64_t left = size - 4; left > 0;) {
    const auto n = static_cast<std::streamsize>(std::min<uint64_t>(left, piece.size()));
    if (!in.read(piece.data(), n)) throw CorruptCheckpoint(path + " cannot be read");
    crc = crc32(crc, reinterpret_cast<const Bytef*>(piece.data()), static_cast<uInt>(n));
    left -= static_cast<uint64_t>(n);
  }
  unsigned char tail[4] = {0, 0, 0, 0};
  in.read(reinterpret_cast<char*>(tail), 4);
  uint32_t stored = 0;
  for (int i = 0; i < 4; ++i) stored |= static_cast<uint32_t>(tail[i]) << (8 * i);
  if (static_cast<uint32_t>(crc) != stored || stored != expected.crc32)
    throw CorruptCheckpoint(path + " is damaged (checksum mismatch)");
}

}  // namespace wb
