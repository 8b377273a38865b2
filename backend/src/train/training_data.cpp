#include "train/training_data.h"

#include "util/default_cpu_generator.h"

namespace wb {

TrainingData loadTrainingData(const Experiment& e, torch::Device device, bool may_place_on_device) {
  TrainingData loaded;
  {
    const auto generator = holdDefaultCpuGenerator();
    torch::manual_seed(e.seed);
  }
  loaded.data = loadDataset(e.data, e.seed);
  DataSplit& train = loaded.data.train;
  if (may_place_on_device && device.is_cuda() && train.inMemory()) {
    loaded.placement =
        chooseDataPlacement(e.train, device, static_cast<int64_t>(train.x.nbytes() + train.y.nbytes()));
    if (loaded.placement->on_device) {
      train.x = train.x.to(device);
      train.y = train.y.to(device);
    }
  }
  return loaded;
}

}  // namespace wb
