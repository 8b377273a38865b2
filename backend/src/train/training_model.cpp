#include "train/training_model.h"

#include <vector>

#include "model/model_build_context.h"
#include "optim/optimizer_factory.h"
#include "pipeline/pipeline_model.h"
#include "util/default_cpu_generator.h"
#include "util/fast_paths.h"

namespace wb {

TrainingModel buildTrainingModel(const Experiment& e, const Dataset& data, torch::Device device,
                                 RankGroup* sync_batchnorm_group) {
  TrainingModel built;
  {
    // Seeded and initialized in one turn: a preview building a model meanwhile cannot draw in between.
    const auto generator = holdDefaultCpuGenerator();
    torch::manual_seed(e.seed);
    SyncBatchNormScope sync_bn(sync_batchnorm_group);
    built.model = buildModel(e.model, data.sample_shape, data.num_classes);
  }
  built.model->to(device);
  // train.pipeline: the layers moved on to their stages' devices (the rank's device is the first stage's).
  if (e.train.pipeline.enabled) built.model = cutIntoStages(std::move(built.model), e.train.pipeline);
  if (useChannelsLast(e.train, data.sample_shape)) {
    std::vector<torch::Tensor> tensors;
    for (const auto& p : built.model->namedParameters()) tensors.push_back(p.second);
    for (const auto& b : built.model->namedBuffers()) tensors.push_back(b.second);
    convertToChannelsLast(tensors);
  }
  if (e.model.freeze_body || !e.model.freeze.empty()) {
    built.frozen = std::make_shared<FrozenParameters>(e.model, *built.model);
    if (!built.frozen->any()) built.frozen.reset();
  }
  built.optimizer = makeOptimizer(e.optimizer, built.model->namedParameters(), built.model->externalNames());
  return built;
}

}  // namespace wb
