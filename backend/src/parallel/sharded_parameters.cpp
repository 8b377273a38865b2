#include "parallel/sharded_parameters.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <map>
#include <set>

#include "model/layer_net_model.h"
#include "workbench/errors.h"

namespace wb {
namespace {

// After a parameter's gradient accumulator has added this backward's gradient into .grad.
struct ShardGradientArrivedHook final : torch::autograd::FunctionPostHook {
  explicit ShardGradientArrivedHook(std::function<void()> arrived) : arrived(std::move(arrived)) {}
  torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                            const torch::autograd::variable_list& /*inputs*/) override {
    arrived();
    return outputs;
  }
  std::function<void()> arrived;
};

LayerNetModel& layerListModel(Model& model) {
  auto* layered = dynamic_cast<LayerNetModel*>(&model);
  if (layered == nullptr) {
    throw UserError(
        "train.shard \"parameters\" gathers the model's parameters layer by layer, and a TorchScript "
        "module has no layer list",
        "Use train.shard \"gradients\" (or \"optimizer\"), or give model.layers or a model.preset.");
  }
  return *layered;
}

// The storage's bytes freed; the tensor keeps its shape, dtype and device, and autograd's saved tensors
// that share the storage see the values again once it is allocated and filled.
void releaseStorage(const torch::Tensor& p) {
  c10::StorageImpl* storage = p.storage().unsafeGetStorageImpl();
  storage->set_data_ptr_noswap(c10::DataPtr(nullptr, storage->device()));
  storage->set_nbytes(0);
}

void allocateStorage(const torch::Tensor& p, size_t nbytes) {
  c10::StorageImpl* storage = p.storage().unsafeGetStorageImpl();
  if (storage->nbytes() == nbytes) return;
  storage->set_data_ptr_noswap(storage->allocator()->allocate(nbytes));
  storage->set_nbytes(nbytes);
}

}  // namespace

ShardedParameters::ShardedParameters(Model& model, RankGroup& group, const ShardPartition& partition)
    : m_group(group), m_model(layerListModel(model)), m_owner(partition.owner) {
  std::set<const c10::StorageImpl*> storages;
  for (const auto& [name, p] : m_model.namedParameters()) {
    if (!p.requires_grad()) continue;
    const c10::StorageImpl* storage = p.storage().unsafeGetStorageImpl();
    const auto whole = static_cast<size_t>(p.numel()) * p.element_size();
    // Released and allocated by storage: a parameter must be its storage, the whole of it, alone.
    if (p.storage_offset() != 0 || storage->nbytes() != whole || !storage->allocator() ||
        !storages.insert(storage).second) {
      throw UserError("train.shard \"parameters\": parameter " + name +
                          " shares its storage with another tensor, which the shard cannot release alone",
                      "Use train.shard \"gradients\".");
    }
    m_params.push_back(p);
    m_nbytes.push_back(whole);
  }
  if (m_params.size() != m_owner.size()) throw std::logic_error("ShardedParameters: partition mismatch");
  std::map<const c10::TensorImpl*, size_t> index;
  for (size_t k = 0; k < m_params.size(); ++k) index[m_params[k].unsafeGetTensorImpl()] = k;
  torch::nn::Sequential& layers = m_model.net()->layers();
  for (size_t i = 0; i < layers->size(); ++i) {
    std::vector<size_t> own;
    for (const auto& p : layers[i]->parameters()) {
      if (const auto it = index.find(p.unsafeGetTensorImpl()); it != index.end()) own.push_back(it->second);
    }
    m_layer.push_back(std::move(own));
  }
  m_gathered.assign(m_layer.size(), true);
  m_pending.assign(m_layer.size(), 0);
  m_reduced.assign(m_layer.size(), false);
  for (size_t i = 0; i < m_layer.size(); ++i) {
    for (const size_t k : m_layer[i]) {
      compat::GradAccumulatorPtr accumulator = torch::autograd::impl::grad_accumulator(m_params[k]);
      const uintptr_t key = accumulator->add_post_hook(
          std::make_unique<ShardGradientArrivedHook>([this, i] { gradientArrived(i); }));
      // Holding the accumulator keeps it the one backward uses (the parameter only holds it weakly).
      m_hooks.emplace_back(std::move(accumulator), key);
    }
  }
  // The model may outlive this part or die before it (a rank's step owns the model, the part is shared): the
  // runner holds it weakly and runs the layers plainly once it is gone, and the destructor leaves the model
  // alone.
  m_model.net()->setLayerRunner([alive = std::weak_ptr<ShardedParameters*>(m_alive)](
                                    size_t i, torch::nn::AnyModule& module, torch::Tensor x) {
    if (const auto self = alive.lock()) return (*self)->runLayer(i, module, x);
    return module.forward(x);
  });
}

ShardedParameters::~ShardedParameters() {
  for (auto& [node, key] : m_hooks) node->del_post_hook(key);
}

torch::Tensor ShardedParameters::runLayer(size_t layer, torch::nn::AnyModule& module, torch::Tensor x) {
  if (m_layer[layer].empty()) return module.forward(x);
  gatherLayer(layer);
  torch::Tensor y = module.forward(x);
  if (torch::GradMode::is_enabled() && y.requires_grad()) {
    // Before the layer's backward: its parameters again, and the count of gradients that release them.
    y.register_hook([this, layer](const at::TensorBase&) {
      gatherLayer(layer);
      m_pending[layer] = m_layer[layer].size();
    });
  }
  releaseLayer(layer);
  return y;
}

// One broadcast per rank that owns some of the layer's parameters, in rank order: every rank makes the same
// calls (the gathered state is the same everywhere), the owner sending its values.
void ShardedParameters::gatherLayer(size_t layer) {
  if (m_whole || m_gathered[layer]) return;
  torch::NoGradGuard no_grad;
  const int me = m_group.rank();
  for (const int owner : ownersOf(layer)) {
    std::vector<size_t> theirs;
    int64_t numel = 0;
    for (const size_t k : m_layer[layer]) {
      if (m_owner[k] != owner) continue;
      theirs.push_back(k);
      numel += m_params[k].numel();
    }
    std::vector<torch::Tensor> flat(1);
    if (owner == me) {
      std::vector<torch::Tensor> values;
      for (const size_t k : theirs) values.push_back(m_params[k].detach().reshape({-1}));
      flat[0] = torch::cat(values);
    } else {
      flat[0] = torch::empty({numel}, m_params[theirs.front()].options().requires_grad(false));
    }
    m_group.broadcast(flat, owner);
    if (owner == me) continue;
    int64_t offset = 0;
    for (const size_t k : theirs) {
      allocateStorage(m_params[k], m_nbytes[k]);
      // Its own version counter: autograd's saved copy of the parameter must not count this as a change.
      torch::Tensor values = m_params[k].variable_data();
      values.copy_(flat[0].narrow(0, offset, values.numel()).view(values.sizes()));
      offset += values.numel();
    }
  }
  m_gathered[layer] = true;
}

void ShardedParameters::releaseLayer(size_t layer) {
  if (m_whole || !m_gathered[layer]) return;
  for (const size_t k : m_layer[layer]) {
    if (m_owner[k] != m_group.rank()) releaseStorage(m_params[k]);
  }
  m_gathered[layer] = false;
}

void ShardedParameters::gradientArrived(size_t layer) {
  if (m_pending[layer] == 0 || --m_pending[layer] > 0) return;
  if (m_reduce_in_backward) reduceLayerGradients(layer);
  releaseLayer(layer);
}

// The layer's gradients averaged across the ranks, each owner keeping its own parameters' and the others
// dropping theirs: one allreduce per owning rank, as gatherLayer's broadcasts, multiplied by the reciprocal
// of the rank count as data parallel's allreduce does. An undefined gradient counts as zeros (as in DDP).
void ShardedParameters::reduceLayerGradients(size_t layer) {
  if (m_reduced[layer]) return;
  m_reduced[layer] = true;
  torch::NoGradGuard no_grad;
  const int me = m_group.rank();
  const double scale = 1.0 / m_group.size();
  for (const int owner : ownersOf(layer)) {
    std::vector<torch::Tensor> grads;
    for (const size_t k : m_layer[layer]) {
      if (m_owner[k] != owner) continue;
      const torch::Tensor& g = m_params[k].grad();
      grads.push_back(g.defined() ? g.reshape({-1})
                                  : torch::zeros({m_params[k].numel()}, m_params[k].options()));
    }
    torch::Tensor flat = torch::cat(grads);
    m_group.allreduceSum(flat);
    flat.mul_(scale);
    int64_t offset = 0;
    for (const size_t k : m_layer[layer]) {
      if (m_owner[k] != owner) continue;
      torch::Tensor& p = m_params[k];
      if (owner != me) {
        p.mutable_grad() = torch::Tensor();
        continue;
      }
      if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
      p.mutable_grad().copy_(flat.narrow(0, offset, p.numel()).view(p.sizes()));
      offset += p.numel();
    }
  }
}

std::vector<int> ShardedParameters::ownersOf(size_t layer) const {
  std::set<int> owners;
  for (const size_t k : m_layer[layer]) owners.insert(m_owner[k]);
  return {owners.begin(), owners.end()};
}

void ShardedParameters::beforeStep(int64_t /*step*/) {
  releaseOthers();
}

void ShardedParameters::beforeBackward(bool completes) {
  m_reduce_in_backward = completes;
  std::fill(m_reduced.begin(), m_reduced.end(), false);
}

// A layer with a parameter that this step's backward gave no gradient (unused) was neither reduced nor
// released in backward: it is here, in layer order (the same layers on every rank).
void ShardedParameters::gradientsReady() {
  for (size_t i = 0; i < m_layer.size(); ++i) {
    m_pending[i] = 0;
    if (!m_layer[i].empty()) reduceLayerGradients(i);
    releaseLayer(i);
  }
}

void ShardedParameters::beforeEvaluation() {
  gatherAll();
}

void ShardedParameters::gatherAll() {
  if (m_whole) return;
  for (size_t i = 0; i < m_layer.size(); ++i) gatherLayer(i);
  m_whole = true;
}

void ShardedParameters::releaseOthers() {
  m_whole = false;
  std::fill(m_gathered.begin(), m_gathered.end(), true);
  for (size_t i = 0; i < m_layer.size(); ++i) releaseLayer(i);
  std::fill(m_pending.begin(), m_pending.end(), 0);
}

int64_t ShardedParameters::heldParameterBytes() const {
  int64_t bytes = 0;
  for (const auto& p : m_params) bytes += static_cast<int64_t>(p.storage().nbytes());
  return bytes;
}

int64_t ShardedParameters::ownParameterBytes() const {
  int64_t bytes = 0;
  for (size_t k = 0; k < m_params.size(); ++k) {
    if (m_owner[k] == m_group.rank()) bytes += static_cast<int64_t>(m_nbytes[k]);
  }
  return bytes;
}

}  // namespace wb
