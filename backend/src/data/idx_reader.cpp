// IDX files (Yann LeCun's MNIST format, also Fashion-MNIST): a big-endian header — two zero bytes, a type
// byte (0x08 = unsigned byte), the number of dimensions — then one 32-bit big-endian size per dimension,
// then the payload. Images are 0x00000803 (N, rows, cols); labels 0x00000801 (N).

#include <cstdio>
#include <string>
#include <vector>

#include "data/dataset_readers.h"
#include "data/idx_labels.h"
#include "data/maybe_gzip_file.h"
#include "workbench/errors.h"

namespace wb {

namespace {

enum class IdxKind { Images, Labels };

constexpr uint32_t kImagesMagic = 0x00000803;
constexpr uint32_t kLabelsMagic = 0x00000801;
constexpr uint8_t kUnsignedByteType = 0x08;
// Larger than any image format we would train on; a bigger number means the header is damaged.
constexpr int64_t kMaxImageSide = 65536;

const char* kindName(IdxKind kind) {
  return kind == IdxKind::Images ? "images" : "labels";
}
const char* payloadName(IdxKind kind) {
  return kind == IdxKind::Images ? "pixels" : "labels";
}

std::string hex32(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08x", value);
  return text;
}

const char* idxTypeName(uint8_t type) {
  switch (type) {
    case 0x08:
      return "unsigned byte";
    case 0x09:
      return "signed byte";
    case 0x0B:
      return "16-bit integer";
    case 0x0C:
      return "32-bit integer";
    case 0x0D:
      return "32-bit float";
    case 0x0E:
      return "64-bit float";
    default:
      return "unknown";
  }
}

const char* kIdxRedownload = "the file is damaged or not what its name says; fetch it again";

uint32_t bigEndian32(const unsigned char* bytes) {
  return (uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) | (uint32_t{bytes[2]} << 8) |
         uint32_t{bytes[3]};
}

// Reads and checks the header; returns the dimensions ({N, rows, cols} or {N}).
std::vector<int64_t> readHeader(MaybeGzipFile& file, IdxKind kind) {
  const std::string& path = file.path();
  unsigned char magic_bytes[4];
  const int64_t got = file.read(magic_bytes, 4);
  if (got < 4) {
    throw DataError(
        path + ": is too short to be an IDX " + kindName(kind) + " file (" + std::to_string(got) + " bytes)",
        kIdxRedownload);
  }
  const uint32_t magic = bigEndian32(magic_bytes);
  const uint32_t expected = kind == IdxKind::Images ? kImagesMagic : kLabelsMagic;
  if (magic != expected) {
    if (kind == IdxKind::Images && magic == kLabelsMagic) {
      throw DataError(path + ": is a labels file (IDX magic 0x00000801), not an images file",
                      "the images and labels files are swapped");
    }
    if (kind == IdxKind::Labels && magic == kImagesMagic) {
      throw DataError(path + ": is an images file (IDX magic 0x00000803), not a labels file",
                      "the images and labels files are swapped");
    }
    if (magic_bytes[0] != 0 || magic_bytes[1] != 0) {
      throw DataError(path + ": is not an IDX file (magic " + hex32(magic) + ", expected " + hex32(expected) +
                          " for " + kindName(kind) + ")",
                      kIdxRedownload);
    }
    if (magic_bytes[2] != kUnsignedByteType) {
      throw DataError(path + ": holds " + idxTypeName(magic_bytes[2]) + " values (IDX magic " + hex32(magic) +
                          "); only unsigned bytes (" + hex32(expected) + ") are supported",
                      "convert the file to unsigned bytes");
    }
    throw DataError(path + ": has " + std::to_string(magic_bytes[3]) + " dimensions (IDX magic " +
                        hex32(magic) + "), expected " +
                        (kind == IdxKind::Images ? "3 for images" : "1 for labels"),
                    kIdxRedownload);
  }

  const int dims = magic_bytes[3];
  std::vector<int64_t> sizes(dims);
  for (int d = 0; d < dims; ++d) {
    unsigned char size_bytes[4];
    if (file.read(size_bytes, 4) < 4) {
      throw DataError(path + ": truncated: the IDX header ends before its dimensions", kIdxRedownload);
    }
    sizes[d] = bigEndian32(size_bytes);
  }
  if (sizes[0] == 0) {
    throw DataError(path + ": holds no " + std::string(kindName(kind)) + " (the header says 0)",
                    kIdxRedownload);
  }
  if (kind == IdxKind::Images) {
    for (int d = 1; d < 3; ++d) {
      if (sizes[d] == 0 || sizes[d] > kMaxImageSide) {
        throw DataError(path + ": implausible image size " + std::to_string(sizes[1]) + "x" +
                            std::to_string(sizes[2]) + " in the IDX header",
                        kIdxRedownload);
      }
    }
  }
  return sizes;
}

int64_t headerBytes(IdxKind kind) {
  return kind == IdxKind::Images ? 16 : 8;
}

// Before allocating for the payload, checks that the file can hold it, so that a damaged header costs a
// message instead of a huge allocation. For plain files this is exact.
void checkPayloadFits(const MaybeGzipFile& file, IdxKind kind, int64_t payload) {
  const std::string& path = file.path();
  if (!file.compressed()) {
    const int64_t available = file.sizeOnDisk() - headerBytes(kind);
    if (available < payload) {
      throw DataError(path + ": truncated: expected " + std::to_string(payload) + " bytes of " +
                          payloadName(kind) + ", found " + std::to_string(available),
                      kIdxRedownload);
    }
    if (available > payload) {
      throw DataError(path + ": has " + std::to_string(available - payload) + " trailing bytes after the " +
                          std::to_string(payload) + " bytes of " + payloadName(kind) +
                          " its header announces",
                      kIdxRedownload);
    }
  } else if (payload > maxGzipExpansion(file.sizeOnDisk())) {
    throw DataError(path + ": its header announces " + std::to_string(payload) + " bytes of " +
                        payloadName(kind) + ", more than a " + std::to_string(file.sizeOnDisk()) +
                        "-byte gzip file can hold",
                    kIdxRedownload);
  }
}

// Reads exactly `payload` bytes into `destination` and checks that nothing follows.
void readPayload(MaybeGzipFile& file, IdxKind kind, void* destination, int64_t payload) {
  const std::string& path = file.path();
  const int64_t got = file.read(destination, payload);
  if (got < payload) {
    throw DataError(path + ": truncated: expected " + std::to_string(payload) + " bytes of " +
                        payloadName(kind) + ", found " + std::to_string(got),
                    kIdxRedownload);
  }
  const int64_t trailing = file.countRemaining();
  if (trailing > 0) {
    throw DataError(path + ": has " + std::to_string(trailing) + " trailing bytes after the " +
                        std::to_string(payload) + " bytes of " + payloadName(kind) + " its header announces",
                    kIdxRedownload);
  }
}

torch::Tensor readImages(const std::string& images_file) {
  MaybeGzipFile file(images_file);
  const std::vector<int64_t> dims = readHeader(file, IdxKind::Images);
  const int64_t payload = dims[0] * dims[1] * dims[2];
  checkPayloadFits(file, IdxKind::Images, payload);
  // Inflated straight into the tensor's memory: the pixels are copied exactly once.
  torch::Tensor images = torch::empty({dims[0], 1, dims[1], dims[2]}, torch::kUInt8);
  readPayload(file, IdxKind::Images, images.data_ptr<uint8_t>(), payload);
  return images;
}

}  // namespace

torch::Tensor readIdxLabels(const std::string& labels_file) {
  MaybeGzipFile file(labels_file);
  const std::vector<int64_t> dims = readHeader(file, IdxKind::Labels);
  checkPayloadFits(file, IdxKind::Labels, dims[0]);
  torch::Tensor labels = torch::empty({dims[0]}, torch::kUInt8);
  readPayload(file, IdxKind::Labels, labels.data_ptr<uint8_t>(), dims[0]);
  return labels.to(torch::kLong);
}

RawSplit readIdx(const std::string& images_file, const std::string& labels_file) {
  RawSplit split;
  split.inputs = readImages(images_file);
  split.labels = readIdxLabels(labels_file);
  const int64_t images = split.inputs.size(0);
  const int64_t labels = split.labels.size(0);
  if (images != labels) {
    throw DataError(images_file + " holds " + std::to_string(images) + " images but " + labels_file +
                        " holds " + std::to_string(labels) + " labels",
                    "the two files come from different datasets or splits; use a matching pair");
  }
  return split;
}

std::vector<int64_t> readIdxImageHeader(const std::string& images_file) {
  MaybeGzipFile file(images_file);
  return readHeader(file, IdxKind::Images);
}

}  // namespace wb
