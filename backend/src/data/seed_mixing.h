#pragma once
// Seeds derived from the experiment's seed for each random stream of the data module, so that streams are
// independent of one another and reproducible from (seed, what, where).
//
// Torch's CPU generator (mt19937) keeps only the low 32 bits of its seed, so seeds that differ only in their
// high bits would give the same stream. Every derived seed therefore goes through splitmix64 and is folded to
// 32 bits before it reaches Torch.

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <cstdint>

namespace wb {

// Which random stream a seed is for; the values are part of the reproducibility contract (changing one
// changes every run's data order), so they are spelled out.
enum class SeedStream : uint64_t {
  ValidationSplit = 1,
  CsvTestSplit = 2,
  EpochOrder = 3,
  Augmentation = 4,
  SyntheticData = 5,
  ImageFolderTestSplit = 6,
  ImageFolderLimit = 7,
  TextTestSplit = 8,
  TextLimit = 9,
};

inline uint64_t splitMix64(uint64_t value) {
  value += 0x9e3779b97f4a7c15ULL;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31);
}

// Mixes `value` into `seed`; chaining gives seeds for (seed, stream, epoch, batch, ...).
inline uint64_t mixSeed(uint64_t seed, uint64_t value) {
  return splitMix64(seed ^ splitMix64(value));
}

inline uint64_t streamSeed(uint64_t seed, SeedStream stream) {
  return mixSeed(seed, static_cast<uint64_t>(stream));
}

// A CPU generator for `seed`, with the 64 bits folded into the 32 that mt19937 uses.
inline torch::Generator makeCpuGenerator(uint64_t seed) {
  const uint64_t mixed = splitMix64(seed);
  return at::detail::createCPUGenerator((mixed ^ (mixed >> 32)) & 0xffffffffULL);
}

}  // namespace wb
