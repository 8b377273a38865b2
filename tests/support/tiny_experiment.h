#pragma once
// The smallest experiment that trains for real: 512 synthetic 1x8x8 samples in 4 classes, the MLP, batch 32,
// one thread on the CPU — a step takes about a millisecond, a two-epoch run well under a second.

#include <nlohmann/json.hpp>
#include <string>

namespace wb::test {

inline nlohmann::json tinySyntheticExperiment(const std::string& runs_dir) {
  return {
      {"seed", 7},
      {"data",
       {{"dataset", "synthetic"},
        {"augment", false},
        {"synthetic", {{"samples", 512}, {"classes", 4}, {"shape", {1, 8, 8}}}}}},
      {"model", {{"preset", "mlp"}}},
      {"optimizer", {{"name", "adamw"}, {"lr", 0.003}}},
      {"train", {{"batch_size", 32}, {"epochs", 2}, {"threads", 1}, {"devices", {"cpu"}}}},
      {"output", {{"runs_dir", runs_dir}}},
  };
}

}  // namespace wb::test
