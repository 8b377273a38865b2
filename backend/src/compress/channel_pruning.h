#pragma once
// Structured pruning: whole conv filters and linear neurons are removed and every layer that reads them is
// rewired, so the model really shrinks (a smaller layer list, fewer FLOPs) instead of carrying zeros. As in
// Torch-Pruning, the plan is made whole from the layer list before any tensor changes: channels that a
// residual sum ties together form one group and are removed from every member at once.

#include <nlohmann/json.hpp>

#include "compress/model_artifact.h"
#include "workbench/experiment.h"

namespace wb {

/// Removes the `pass.amount` share (round half to even, at least one channel kept) of the output channels of
/// each selected conv2d / linear layer (`pass.layer_types`, `pass.layers` name prefixes), those with the
/// lowest L1 or L2 weight norm (`pass.norm`) first; a residual group ranks its channels by the sum of its
/// members' norms. The layers reading the removed channels (batch norms, the next conv or linear, through
/// flatten) lose the matching inputs.
///
/// Returns the smaller artifact: layers JSON edited, weights, buffers and masks sliced; name, source and
/// history are copied from `input` for the caller to set. Adds to `record` (a JSON object) "pruned": per
/// layer its path, state-dict name, channels before and after, the removed indices, the tensors rewired and
/// the layers it is coupled with; and "skipped": selected layers that cannot shrink (their outputs are the
/// classes, feed a layernorm or a transformer layer, ...) with the reason.
///
/// UserError for a TorchScript or int8 artifact, when the selection names no layer, or when every selected
/// layer has to be skipped (the message gives the reasons).
ModelArtifact pruneChannels(const ModelArtifact& input, const CompressPassConfig& pass,
                            nlohmann::json& record);

}  // namespace wb
