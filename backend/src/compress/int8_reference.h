#pragma once
// The float simulation of an int8 artifact: what its integer arithmetic means, computed without any int8
// kernel. Weights are the stored int8 values times their per-channel scales; activations are rounded onto
// their quint8 grids (quantize, clamp to the grid's range, dequantize) exactly where QuantizedNet holds
// quint8 tensors, with the same plan, qparams and fused relus; every sum runs in float64, which holds each
// sum of int8 x uint8 products exactly. A correct int8 kernel (LibTorch's, ONNX Runtime's) may differ from it
// only by the rounding of its requantization: a value one grid step away, carried on by later layers. A
// kernel that saturates its 16-bit pair sums (vpmaddubsw on x86 without VNNI) differs by far more, which is
// how the tests tell a wrong kernel from a rounding difference.

#include <memory>

#include "compress/model_artifact.h"

namespace wb {

// For static, qat and dynamic int8 artifacts (dynamic: the input of each int8 linear is quantized per batch
// from its own range, as quantized::linear_dynamic does). UserError for a float artifact.
std::unique_ptr<InferenceModel> makeInt8ReferenceModel(const ModelArtifact& artifact);

}  // namespace wb
