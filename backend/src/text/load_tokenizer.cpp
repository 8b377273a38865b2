// A tokenizer from a model folder or one of its files, by what the folder holds or the file's name.
#include "text/sentencepiece_model.h"
#include "text/tokenizer_files.h"
#include "workbench/errors.h"

namespace wb::text {

std::unique_ptr<TextTokenizer> loadTokenizer(const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    if (std::filesystem::exists(path / "tokenizer.json")) return readTokenizerJson(path / "tokenizer.json");
    if (std::filesystem::exists(path / "vocab.txt")) return readBertVocabFile(path / "vocab.txt");
    for (const char* name : {"spiece.model", "sentencepiece.bpe.model", "tokenizer.model"}) {
      if (std::filesystem::exists(path / name)) return readSentencePieceModel(path / name);
    }
    throw DataError(path.string() + ": the folder has no tokenizer.json, vocab.txt or SentencePiece .model",
                    "choose a Hugging Face model folder, or the tokenizer file itself");
  }
  if (!std::filesystem::exists(path, error)) throw DataError(path.string() + ": no such file or folder");
  if (path.extension() == ".json") return readTokenizerJson(path);
  if (path.extension() == ".txt") return readBertVocabFile(path);
  if (path.extension() == ".model") return readSentencePieceModel(path);
  throw DataError(path.string() + ": not a tokenizer file this workbench reads",
                  "a Hugging Face tokenizer.json, BERT's vocab.txt or a SentencePiece .model");
}

}  // namespace wb::text
