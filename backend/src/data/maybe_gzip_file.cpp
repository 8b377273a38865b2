#include "data/maybe_gzip_file.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "workbench/errors.h"

namespace wb {

namespace {

constexpr unsigned char kGzipMagic0 = 0x1f;
constexpr unsigned char kGzipMagic1 = 0x8b;
// zlib's default 8 KiB buffer makes inflating a 26 MB file measurably slower.
constexpr unsigned kGzipBufferBytes = 1u << 18;
// gzread takes an unsigned int length; stay well inside it.
constexpr int64_t kMaxChunk = int64_t{1} << 30;

}  // namespace

MaybeGzipFile::MaybeGzipFile(std::string path) : m_path(std::move(path)) {
  std::error_code ec;
  const auto status = std::filesystem::status(m_path, ec);
  if (!std::filesystem::exists(status)) {
    throw DataError(m_path + ": file not found", "check data.path, or the file name inside that folder");
  }
  if (std::filesystem::is_directory(status)) {
    throw DataError(m_path + ": is a folder, not a file", "point at the file itself");
  }
  m_plain = std::fopen(m_path.c_str(), "rb");
  if (m_plain == nullptr) {
    throw DataError(m_path + ": cannot open: " + std::strerror(errno), "check the file's permissions");
  }
  m_size_on_disk = static_cast<int64_t>(std::filesystem::file_size(m_path, ec));
  if (ec) m_size_on_disk = 0;

  unsigned char magic[2] = {0, 0};
  const size_t got = std::fread(magic, 1, 2, m_plain);
  if (got == 2 && magic[0] == kGzipMagic0 && magic[1] == kGzipMagic1) {
    std::fclose(m_plain);
    m_plain = nullptr;
    m_gz = gzopen(m_path.c_str(), "rb");
    if (m_gz == nullptr) {
      throw DataError(m_path + ": cannot open as gzip: " + std::strerror(errno),
                      "check the file's permissions");
    }
    gzbuffer(m_gz, kGzipBufferBytes);
  } else {
    std::rewind(m_plain);
  }
}

MaybeGzipFile::~MaybeGzipFile() {
  if (m_gz != nullptr) gzclose(m_gz);
  if (m_plain != nullptr) std::fclose(m_plain);
}

int64_t MaybeGzipFile::read(void* buffer, int64_t size) {
  auto* out = static_cast<unsigned char*>(buffer);
  int64_t total = 0;
  while (total < size) {
    const int64_t want = std::min(size - total, kMaxChunk);
    int64_t got = 0;
    if (m_gz != nullptr) {
      const int n = gzread(m_gz, out + total, static_cast<unsigned>(want));
      int errnum = Z_OK;
      const char* message = gzerror(m_gz, &errnum);
      // A cut-off stream makes gzread return what it has and leaves Z_BUF_ERROR behind; a damaged one
      // returns -1 (bad deflate data, CRC or length mismatch).
      if (n < 0 || (errnum != Z_OK && errnum != Z_BUF_ERROR)) {
        throw DataError(m_path + ": corrupt gzip data (" + (message ? message : "unknown zlib error") + ")",
                        "the download or copy is damaged; fetch the file again");
      }
      if (errnum == Z_BUF_ERROR) {
        throw DataError(m_path + ": the gzip stream ends early (the file is cut off)",
                        "the download or copy is incomplete; fetch the file again");
      }
      got = n;
    } else {
      got = static_cast<int64_t>(std::fread(out + total, 1, static_cast<size_t>(want), m_plain));
      if (got < want && std::ferror(m_plain)) {
        throw DataError(m_path + ": read error: " + std::strerror(errno), "check the disk and the file");
      }
    }
    total += got;
    if (got < want) break;
  }
  return total;
}

int64_t MaybeGzipFile::countRemaining() {
  std::vector<unsigned char> scratch(1 << 16);
  int64_t remaining = 0;
  while (true) {
    const int64_t got = read(scratch.data(), static_cast<int64_t>(scratch.size()));
    remaining += got;
    if (got < static_cast<int64_t>(scratch.size())) return remaining;
  }
}

int64_t maxGzipExpansion(int64_t compressed_size) {
  return compressed_size * 1032 + 1024;
}

}  // namespace wb
