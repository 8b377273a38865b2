#pragma once
// The tensors a safetensors export writes: the artifact's parameters, buffers and int8 tensors, in its order.
// A float model whose layers carry names outside (torchvision's architectures, docs/experiment.md "Names
// outside") is written under those names, so PyTorch's own model loads the file with load_state_dict; every
// other model keeps its state-dict names ("layers.0.weight").

#include "compress/model_artifact.h"

namespace wb {

NamedTensors exportedTensors(const ModelArtifact& artifact);

}  // namespace wb
