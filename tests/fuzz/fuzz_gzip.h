#pragma once
// gzip-compresses a fuzz input in memory (zlib, gzip framing), so that targets reading files that may be
// compressed reach the inflating path with streams that are valid, not only with damaged ones.

#include <zlib.h>

#include <string>

#include "fuzz_support.h"

namespace wb::fuzz {

inline std::string gzipped(const std::string& plain) {
  z_stream stream{};
  // windowBits 15 + 16: gzip header and trailer rather than zlib's.
  if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    fuzzFail("deflateInit2 failed");
  }
  std::string out(deflateBound(&stream, plain.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
  stream.avail_in = static_cast<uInt>(plain.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&stream, Z_FINISH);
  deflateEnd(&stream);
  if (rc != Z_STREAM_END) fuzzFail("deflate did not finish");
  out.resize(stream.total_out);
  return out;
}

}  // namespace wb::fuzz
