// A tokenizer from a model folder or one of its files, by what the folder holds or the file's name.
#include "text/sentencepiece_model.h"
#include "text/tokenizer_files.h"
#include "workbench/errors.h"

namespace wb::text {
namespace {

// The file loadTokenizer reads for `path`: the folder's tokenizer.json, else its vocab.txt, else its
// SentencePiece model; or `path` itself.
std::filesystem::path tokenizerFileOf(const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    for (const char* name :
         {"tokenizer.json", "vocab.txt", "spiece.model", "sentencepiece.bpe.model", "tokenizer.model"}) {
      if (std::filesystem::exists(path / name)) return path / name;
    }
    throw DataError(path.string() + ": the folder has no tokenizer.json, vocab.txt or SentencePiece .model",
                    "choose a Hugging Face model folder, or the tokenizer file itself");
  }
  if (!std::filesystem::exists(path, error)) throw DataError(path.string() + ": no such file or folder");
  return path;
}

}  // namespace

std::unique_ptr<TextTokenizer> loadTokenizer(const std::filesystem::path& path) {
  const std::filesystem::path file = tokenizerFileOf(path);
  if (file.extension() == ".json") return readTokenizerJson(file);
  if (file.extension() == ".txt") return readBertVocabFile(file);
  if (file.extension() == ".model") return readSentencePieceModel(file);
  throw DataError(file.string() + ": not a tokenizer file this workbench reads",
                  "a Hugging Face tokenizer.json, BERT's vocab.txt or a SentencePiece .model");
}

std::vector<std::filesystem::path> tokenizerSourceFiles(const std::filesystem::path& path) {
  const std::filesystem::path file = tokenizerFileOf(path);
  std::vector<std::filesystem::path> files{file};
  // vocab.txt's casing comes from the tokenizer_config.json beside it (readBertVocabFile).
  const std::filesystem::path config = file.parent_path() / "tokenizer_config.json";
  if (file.extension() == ".txt" && std::filesystem::exists(config)) files.push_back(config);
  return files;
}

}  // namespace wb::text
