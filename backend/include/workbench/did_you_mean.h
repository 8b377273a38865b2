#pragma once
// "Did you mean": the valid word a user most likely meant when they typed one that is not valid.

#include <string>
#include <vector>

namespace wb {

// The candidate closest to `word`, or "" when none is close enough to be a plausible typo. Case, surrounding
// spaces and the separators '_', '-' and ' ' are forgiven first ("Adam" → "adam", "batchsize" →
// "batch_size"), then one or two slips of the keyboard (a letter missing, extra, wrong, or two letters
// swapped: "trian" → "train", "consine" → "cosine"), and last a word cut short or run on ("val_acc" →
// "val_accuracy", "cosine" → "cos").
std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace wb
