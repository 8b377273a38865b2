#pragma once
// An optimizer's state read back from a checkpoint written by either LibTorch: 1.13 or 2.x.
// LibTorch's optimizer.save names each parameter's state with a key made from the address of the parameter's
// TensorImpl: 1.13 writes it in hex ("0x55d1c0a2b3c0"), 2.x in decimal. 2.x's load parses the keys with
// std::stoull, which reads every hex key as 0, so a run checkpointed on 1.13 would resume on 2.x with no
// state or the wrong one (the moments of another parameter). The keys are matched here as the strings they
// are, through the parameter groups' lists of them, so each state goes back to the parameter at the same
// position of the same group, whichever LibTorch wrote the archive and whichever reads it.

#include <torch/torch.h>

namespace wb {

// optimizer.load(saved) (the groups' options), then every parameter's state again by position. Supports the
// optimizers makeOptimizer builds (SGD, Adam, AdamW, RMSprop, Adagrad, and ours derived from them:
// fused_adam.h, fused_sgd.h, foreach_optimizers.h; the fused Adam's load() drops its device step counts,
// which its next step makes again from the int64 ones read here); for another type the LibTorch load stands
// alone.
void loadOptimizerState(torch::optim::Optimizer& optimizer, torch::serialize::InputArchive& saved);

}  // namespace wb
