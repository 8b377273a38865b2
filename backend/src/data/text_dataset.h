#pragma once
// data.dataset "text": a file (or folder) of labelled texts as a Dataset whose splits are TextSources. The
// training file is tokenized once (data/text_cache.h), split into test (data.test_path, else
// data.test_fraction), training and validation shares as an image folder is, and batches are padded per
// batch. The labels are the file's, sorted; a test file's labels must be among them.

#include <cstdint>
#include <vector>

#include "data/dataset.h"
#include "data/tokenized_texts.h"

namespace wb {

Dataset loadTextDataset(const DataConfig& config, uint64_t seed);

// data.text's columns and tokenizing settings, as loadTextDataset reads the file with them.
text::TextColumns textColumnsOf(const DataConfig& config);
TextTokenizing textTokenizingOf(const DataConfig& config);

// The shape loadTextDataset gives (sample_shape {3, data.text.max_length}, the label count, the training
// share before limit and validation); tokenizes the training file into the cache, so a run's start after it
// does not.
DataShape probeTextDataset(const DataConfig& config);

// The share of a training epoch's padded positions that are padding, for `batch_size`, with or without
// length bucketing, over an order drawn from `seed` (an epoch's as the loader draws one, in kind), or -1 for
// a split that is not texts.
double trainingPaddingWasted(const DataSplit& train, int64_t batch_size, bool bucket_by_length,
                             uint64_t seed);

}  // namespace wb
