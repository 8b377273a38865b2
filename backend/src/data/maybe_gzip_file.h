#pragma once
// A data file that may be gzip-compressed. Compression is recognised by the gzip magic bytes (1f 8b), not by
// the file name, so a renamed or decompressed copy reads the same. Every failure is a wb::DataError naming
// the file.

#include <cstdint>
#include <cstdio>
#include <string>

struct gzFile_s;  // zlib's handle; zlib.h stays out of this header

namespace wb {

class MaybeGzipFile {
 public:
  explicit MaybeGzipFile(std::string path);  // throws DataError when the file is missing or unreadable
  ~MaybeGzipFile();
  MaybeGzipFile(const MaybeGzipFile&) = delete;
  MaybeGzipFile& operator=(const MaybeGzipFile&) = delete;

  const std::string& path() const { return m_path; }
  bool compressed() const { return m_gz != nullptr; }
  int64_t sizeOnDisk() const { return m_size_on_disk; }

  // Reads up to `size` bytes into `buffer`; fewer only at the end of the data. A damaged or cut-off gzip
  // stream throws DataError rather than returning short, so a short read always means "the data ended".
  int64_t read(void* buffer, int64_t size);
  // Reads to the end and returns how many bytes were left (for "trailing bytes" messages).
  int64_t countRemaining();

 private:
  std::string m_path;
  std::FILE* m_plain = nullptr;
  gzFile_s* m_gz = nullptr;
  int64_t m_size_on_disk = 0;
};

// The most bytes a gzip file of `compressed_size` bytes can expand to. Deflate cannot do better than about
// 1032:1, so a header that announces more than this is damaged; checked before allocating for it.
int64_t maxGzipExpansion(int64_t compressed_size);

}  // namespace wb
