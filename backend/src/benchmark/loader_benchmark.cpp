// benchmarkLoader (declared in workbench/training_run.h): the training split's batches as a run's loader
// makes them (its workers, prefetch, transforms and augmentation), taken as fast as they come and thrown
// away: the loader's throughput alone, without a model. The dataset is loaded (and an image folder's
// statistics measured or read) before the clock starts.
#include <sys/resource.h>

#include <chrono>

#include "data/batch_loader.h"
#include "data/dataset.h"
#include "workbench/errors.h"
#include "workbench/training_run.h"

namespace wb {

LoaderBenchResult benchmarkLoader(const Experiment& e, int64_t batches,
                                  const std::function<void(const std::string&)>& log) {
  using Clock = std::chrono::steady_clock;
  const Dataset data = loadDataset(e.data, e.seed);
  if (log) log(data.description);
  BatchLoaderOptions options;
  options.batch_size = e.train.batch_size;
  options.seed = e.seed;
  options.prefetch = e.data.prefetch;
  if (e.data.augment_enabled && data.sample_shape.size() == 3) options.augment = e.data.augment;
  BatchLoader loader(data.train, options);
  if (loader.batchesPerEpoch() == 0) {
    throw UserError("The training split has " + std::to_string(data.train.size()) +
                        " samples, fewer than one batch of " + std::to_string(e.train.batch_size) + ".",
                    "Lower train.batch_size or raise data.limit.");
  }
  const int64_t wanted = batches > 0 ? batches : loader.batchesPerEpoch();
  LoaderBenchResult result;
  result.batch_size = e.train.batch_size;
  result.workers = data.train.inMemory() ? 1 : data.train.source->workers();
  int64_t epoch = 1;
  loader.startEpoch(epoch);
  const auto start = Clock::now();
  for (int64_t i = 0; i < wanted; ++i) {
    std::optional<Batch> batch = loader.next();
    if (!batch) {
      loader.startEpoch(++epoch);
      batch = loader.next();
    }
    result.samples += batch->y.size(0);
    ++result.batches;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.seconds = seconds;
  result.samples_per_sec = seconds > 0 ? static_cast<double>(result.samples) / seconds : 0;
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  result.peak_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux: KiB
  return result;
}

}  // namespace wb
