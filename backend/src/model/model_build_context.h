#pragma once
// What a model build needs to know about the run it is built for, beyond the layer list: set around
// buildModel() by the trainer, read by the layers' instantiate(). Thread-local, because the ranks of a
// data-parallel run build their models on their own threads at the same time.

namespace wb {

class RankGroup;

// The ranks whose batch statistics the batch norms of a model built on this thread share, or nullptr (the
// default): batchnorm1d/batchnorm2d then build torch::nn::BatchNorm1d/2d exactly as on one device. A group
// of size 1 counts as none.
RankGroup* syncBatchNormGroup();

// Sets syncBatchNormGroup() for this thread until it goes out of scope (then the previous one is back):
//   { SyncBatchNormScope scope(group); model = buildModel(...); }
// The group must outlive the model: its batch norms call its collectives in every training-mode forward.
class SyncBatchNormScope {
 public:
  explicit SyncBatchNormScope(RankGroup* group);
  ~SyncBatchNormScope();
  SyncBatchNormScope(const SyncBatchNormScope&) = delete;
  SyncBatchNormScope& operator=(const SyncBatchNormScope&) = delete;

 private:
  RankGroup* m_previous;
};

}  // namespace wb
