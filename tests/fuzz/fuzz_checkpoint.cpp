// Fuzz target: the checkpoint file reader (train/checkpoint_file: magic, header lengths, JSON meta, payload,
// CRC-32), as resume and `runs show` read a checkpoints/ folder — and its writer, round trip.
// The first input byte chooses the mode:
//   bit 0 set:   the rest is a meta JSON text and a payload cut by a separator line "%%" (fuzz_support.h);
//                they are written with writeCheckpointFile and must read back the same (meta text that is not
//                a JSON object stands in as {"text": size}).
//   bit 0 clear: the rest is the file itself; with bit 1 set its last four bytes are replaced by the right
//   CRC,
//                so that the search gets past the checksum into the lengths and the meta.
// Promise: CorruptCheckpoint (or another UserError) with a message, or contents whose meta is a JSON value
// and whose payload lies inside the file — never a crash, never an allocation the file cannot fill.

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "run_folder/checkpoint_file.h"
#include "workbench/errors.h"

namespace {

void readBack(const std::string& path, size_t file_size) {
  using namespace wb;
  try {
    const nlohmann::json meta = readCheckpointMeta(path);
    (void)meta.dump();
  } catch (const CorruptCheckpoint& error) {
    wb::fuzz::expectMessage(error);
  } catch (const UserError& error) {
    wb::fuzz::expectMessage(error);
  }
  try {
    const CheckpointContents contents = readCheckpointFile(path);
    if (contents.payload.size() > file_size) wb::fuzz::fuzzFail("a payload larger than the file");
    (void)contents.meta.dump();
  } catch (const CorruptCheckpoint& error) {
    wb::fuzz::expectMessage(error);
  } catch (const UserError& error) {
    wb::fuzz::expectMessage(error);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wb;
  if (size < 1 || size > 256 * 1024) return 0;
  const uint8_t mode = data[0];
  const std::string path = (fuzz::scratchDir() / "step-00000001.ckpt").string();

  if (mode & 1) {
    std::vector<std::string> parts = fuzz::splitParts(data + 1, size - 1);
    parts.resize(2);
    nlohmann::json meta = nlohmann::json::parse(parts[0], nullptr, /*allow_exceptions=*/false);
    if (!meta.is_object()) meta = {{"text", parts[0].size()}};
    writeCheckpointFile(path, meta, parts[1]);
    const CheckpointContents back = readCheckpointFile(path);  // a file we just wrote must read back
    if (back.meta != meta) fuzz::fuzzFail("the meta read back differs from the meta written");
    if (back.payload != parts[1]) fuzz::fuzzFail("the payload read back differs from the payload written");
    if (readCheckpointMeta(path) != meta)
      fuzz::fuzzFail("the header read alone differs from the meta written");
    return 0;
  }

  std::string file(reinterpret_cast<const char*>(data + 1), size - 1);
  if ((mode & 2) && file.size() >= 4) {
    const size_t body = file.size() - 4;
    const uLong crc =
        crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(file.data()), static_cast<uInt>(body));
    for (int i = 0; i < 4; ++i) file[body + i] = static_cast<char>((crc >> (8 * i)) & 0xff);
  }
  fuzz::writeFile(path, file);
  readBack(path, file.size());
  return 0;
}
