#pragma once
// Parameters picked by name pattern, for model.freeze and optimizer.param_groups: a glob ('*' any run of
// characters, dots included; '?' one character) matched against the name a parameter has outside the
// workbench (torchvision's "layer1.0.conv1.weight", Model::externalNames) or, when it picks none of those,
// against ours ("layers.4.layers.0.weight"), so a pattern written from either vocabulary works. A pattern
// without a wildcard that names a module ("conv1", "layer1") picks the module's parameters, as "conv1.*"
// would.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace wb {

bool globMatches(const std::string& pattern, const std::string& name);

// A parameter's two names: ours and the one it has outside (equal when the model has none of its own).
struct ParameterName {
  std::string ours;
  std::string external;
};

// `ours` in order with their external names from `external_names` (identity where the map lacks one).
std::vector<ParameterName> parameterNames(const std::vector<std::string>& ours,
                                          const std::map<std::string, std::string>& external_names);

// The indices of the parameters `pattern` picks, in order: those whose external name it matches; only a
// pattern that matches no external name is tried on ours. Not both at once: torchvision's "layer*" (layer1 to
// layer4) also matches every one of our "layers.<i>..." names, and a body group ["conv1.*", "bn1.*",
// "layer*"] took resnet18's head (fc, ours "layers.9") into it, training it at the body's rate.
std::vector<size_t> patternPicks(const std::string& pattern, const std::vector<ParameterName>& names);

// What to say about a pattern that picks no parameter, at `path` ("model.freeze[1]"): the pattern, a "did you
// mean" among the module patterns of the model ("layer1.*") when one is close, else a few names to write
// from.
std::string noMatchMessage(const std::string& path, const std::string& pattern,
                           const std::vector<ParameterName>& names);

}  // namespace wb
