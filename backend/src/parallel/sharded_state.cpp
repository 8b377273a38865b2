#include "parallel/sharded_state.h"

#include <algorithm>

#include "workbench/errors.h"

namespace wb {
namespace {

std::vector<torch::Tensor> trainableParameters(Model& model) {
  std::vector<torch::Tensor> out;
  for (const auto& p : model.parameters()) {
    if (p.requires_grad()) out.push_back(p);
  }
  return out;
}

std::vector<int64_t> numels(const std::vector<torch::Tensor>& params) {
  std::vector<int64_t> out;
  for (const auto& p : params) out.push_back(p.numel());
  return out;
}

// Elements [from, from + n) of `t` in its logical (row-major) order, as a view where `t` is contiguous.
// Copying into a non-contiguous tensor (channels_last weights) goes through a contiguous copy.
void copyIntoRange(torch::Tensor t, int64_t from, const torch::Tensor& values) {
  if (t.is_contiguous()) {
    t.view({-1}).narrow(0, from, values.numel()).copy_(values);
    return;
  }
  torch::Tensor flat = t.contiguous().view({-1});
  flat.narrow(0, from, values.numel()).copy_(values);
  t.copy_(flat.view(t.sizes()));
}

}  // namespace

ShardedTrainingState::ShardedTrainingState(Model& model, torch::optim::Optimizer& optimizer, RankGroup& group,
                                           const TrainConfig& train)
    : m_optimizer(optimizer),
      m_group(group),
      m_level(train.shard),
      m_bucket_mb(train.bucket_mb),
      m_params(trainableParameters(model)) {
  if (m_level == ShardLevel::None) {
    throw UserError("train.shard \"none\" has no shard to keep", "Build no ShardedTrainingState for it.");
  }
  for (const auto& p : m_params) {
    if (p.scalar_type() != m_params.front().scalar_type()) {
      throw UserError("train.shard needs the trainable parameters in one dtype; this model mixes " +
                          std::string(c10::toString(m_params.front().scalar_type())) + " and " +
                          c10::toString(p.scalar_type()),
                      "Set train.shard to \"none\".");
    }
  }
  m_partition = partitionByNumel(numels(m_params), group.size());
}

int64_t ShardedTrainingState::chunkElements() const {
  if (m_params.empty()) return 1;
  const double bytes = m_bucket_mb * 1024.0 * 1024.0;
  const double per = static_cast<double>(m_params.front().element_size()) * m_group.size();
  return std::max<int64_t>(1, static_cast<int64_t>(bytes / per));
}

void ShardedTrainingState::forEachPiece(int r, int64_t begin, int64_t end,
                                        const std::function<void(size_t, int64_t, int64_t)>& piece) const {
  for (size_t i = 0; i < m_params.size(); ++i) {
    if (m_partition.owner[i] != r) continue;
    const int64_t o = m_partition.offset[i];
    const int64_t lo = std::max(o, begin);
    const int64_t hi = std::min(o + m_params[i].numel(), end);
    if (lo < hi) piece(i, lo - o, hi - lo);
  }
}

void ShardedTrainingState::pack(int r, int64_t begin, int64_t end, What what, torch::Tensor flat) const {
  forEachPiece(r, begin, end, [&](size_t i, int64_t from, int64_t length) {
    torch::Tensor dst = flat.narrow(0, m_partition.offset[i] + from - begin, length);
    const torch::Tensor source = what == What::Values ? m_params[i].detach() : m_params[i].grad();
    if (!source.defined()) {
      dst.zero_();  // a parameter this step did not use: a zero gradient, as in DDP
      return;
    }
    dst.copy_(source.reshape({-1}).narrow(0, from, length));
  });
}

void ShardedTrainingState::unpack(int r, int64_t begin, int64_t end, What what, const torch::Tensor& flat) {
  forEachPiece(r, begin, end, [&](size_t i, int64_t from, int64_t length) {
    torch::Tensor& p = m_params[i];
    if (what == What::Gradients && !p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
    copyIntoRange(what == What::Values ? p.detach() : p.mutable_grad(), from,
                  flat.narrow(0, m_partition.offset[i] + from - begin, length));
  });
}

void ShardedTrainingState::dropOtherGradients() {
  for (size_t i = 0; i < m_params.size(); ++i) {
    if (!m_partition.owns(m_group.rank(), i) && m_params[i].grad().defined()) {
      m_params[i].mutable_grad() = torch::Tensor();
    }
  }
}

// In chunks of about train.bucket_mb of input, so the extra buffer is a bucket, not a second copy of every
// gradient: chunk c holds elements [c·k, (c+1)·k) of every rank's shard, one after another.
void ShardedTrainingState::reduceScatterGradients() {
  const int size = m_group.size();
  const int64_t chunk = chunkElements();
  const double scale = 1.0 / size;  // as the allreduce averages: a multiplication by the reciprocal
  for (int64_t begin = 0; begin < m_partition.padded_numel; begin += chunk) {
    const int64_t end = std::min(m_partition.padded_numel, begin + chunk);
    const int64_t len = end - begin;
    torch::Tensor input = torch::zeros({len * size}, m_params.front().options().requires_grad(false));
    for (int r = 0; r < size; ++r) pack(r, begin, end, What::Gradients, input.narrow(0, r * len, len));
    torch::Tensor mine = torch::empty({len}, input.options());
    m_group.reduceScatterSum(input, mine);
    mine.mul_(scale);
    unpack(m_group.rank(), begin, end, What::Gradients, mine);
  }
}

void ShardedTrainingState::gradientsReady() {
  // At "parameters" ShardedParameters reduces them layer by layer in backward.
  if (m_level != ShardLevel::Gradients || m_params.empty()) return;
  torch::NoGradGuard no_grad;
  reduceScatterGradients();
  dropOtherGradients();
}

bool ShardedTrainingState::optimizerStep(torch::optim::Optimizer& /*optimizer*/) {
  // Clipping has seen every gradient (or the group's norm): the optimizer now steps this shard alone.
  dropOtherGradients();
  return false;
}

void ShardedTrainingState::afterStep(int64_t /*step*/) {
  // At "parameters" the other shards are not kept between steps: ShardedParameters gathers them per layer.
  if (m_params.empty() || m_level == ShardLevel::Parameters) return;
  torch::NoGradGuard no_grad;
  const int size = m_group.size();
  const int64_t chunk = chunkElements();
  for (int64_t begin = 0; begin < m_partition.padded_numel; begin += chunk) {
    const int64_t end = std::min(m_partition.padded_numel, begin + chunk);
    const int64_t len = end - begin;
    torch::Tensor mine = torch::zeros({len}, m_params.front().options().requires_grad(false));
    pack(m_group.rank(), begin, end, What::Values, mine);
    torch::Tensor all = torch::empty({len * size}, mine.options());
    m_group.allgatherInto(mine, all);
    for (int r = 0; r < size; ++r) {
      if (r != m_group.rank()) unpack(r, begin, end, What::Values, all.narrow(0, r * len, len));
    }
  }
}

int ShardedTrainingState::ownerOf(const torch::Tensor& parameter) const {
  for (size_t i = 0; i < m_params.size(); ++i) {
    if (m_params[i].unsafeGetTensorImpl() == parameter.unsafeGetTensorImpl()) return m_partition.owner[i];
  }
  return -1;
}

}  // namespace wb
