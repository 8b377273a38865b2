// previewWeightsLoad (workbench/weights_load_report.h): the load a run would make, made on the CPU before
// anything trains, for `check` and the experiment's checks.
#include "data/dataset.h"
#include "model/model.h"
#include "util/default_cpu_generator.h"
#include "weights/weights_loading.h"
#include "workbench/weights_load_report.h"

namespace wb {

WeightsLoadReport previewWeightsLoad(const Experiment& e) {
  const DataShape shape = probeDataShape(e.data);
  std::unique_ptr<Model> model;
  {
    // The run's initialization (its seed), so a preview's fresh head is the run's; a run training meanwhile
    // draws as if this preview had not been made.
    BorrowedDefaultCpuGenerator generator(e.seed);
    model = buildModel(e.model, shape.sample_shape, shape.num_classes);
  }
  const ModelWeightsSource source = readModelWeights(startingWeightsOf(e.model), *model);
  return loadModelWeights(*model, source, e.model, describeArchitecture(e.model));
}

}  // namespace wb
