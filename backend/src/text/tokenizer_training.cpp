#include "workbench/tokenizer_training.h"

#include <unistd.h>

#include <filesystem>

#include "text/sentencepiece_library.h"
#include "text/sentencepiece_model.h"
#include "workbench/errors.h"

namespace wb {

TokenizerTrainingResult trainTokenizer(const TokenizerTrainingRequest& request) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_regular_file(request.texts_file, error)) {
    throw DataError(request.texts_file + ": no such file", "give a UTF-8 text file, one text a line");
  }
  if (fs::file_size(request.texts_file, error) == 0) {
    throw DataError(request.texts_file + ": the file is empty", "a tokenizer learns its pieces from texts");
  }
  const fs::path folder = request.output_folder;
  const bool madeFolder = !fs::exists(folder, error);
  fs::create_directories(folder, error);
  if (error) throw DataError(folder.string() + ": cannot make the folder (" + error.message() + ")");
  // SentencePiece writes its two files as it goes: into a folder of our own first, renamed when both are
  // whole.
  const fs::path scratch = folder / (".tokenizer-training-" + std::to_string(::getpid()));
  fs::create_directories(scratch, error);
  try {
    // --pad_id: batches of texts of different lengths are padded (SentencePiece has no padding piece by
    // default); the others are SentencePiece's defaults (unknown 0, begin 1, end 2).
    text::trainSentencePiece(
        {"--input=" + request.texts_file, "--model_prefix=" + (scratch / "tokenizer").string(),
         "--vocab_size=" + std::to_string(request.vocabulary_size),
         "--model_type=" + wordString(request.algorithm), "--pad_id=3", "--minloglevel=2"});
    fs::rename(scratch / "tokenizer.vocab", folder / "tokenizer.vocab");
    fs::rename(scratch / "tokenizer.model", folder / "tokenizer.model");
  } catch (...) {
    fs::remove_all(scratch, error);
    if (madeFolder) fs::remove(folder, error);  // nothing of a failed training stays behind
    throw;
  }
  fs::remove_all(scratch, error);
  TokenizerTrainingResult result;
  result.model_file = (folder / "tokenizer.model").string();
  result.vocabulary_size = text::SentencePieceModel(result.model_file).vocabulary().size();
  return result;
}

}  // namespace wb
