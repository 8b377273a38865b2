#include "text/sentencepiece_model.h"

#include <algorithm>

#include "text/sentencepiece_library.h"
#include "text/unicode_chars.h"
#include "workbench/errors.h"

namespace wb::text {

SentencePieceModel::SentencePieceModel(const std::filesystem::path& file) {
  char error[1024] = {0};
  m_model = sentencePiece().open(file.c_str(), error, sizeof error);
  if (m_model == nullptr) {
    throw DataError(file.string() + ": SentencePiece cannot read it (" + error + ")",
                    "choose the .model file SentencePiece wrote (spm_train, or the model folder's)");
  }
  const int count = sentencePiece().piece_count(m_model);
  for (int id = 0; id < count; ++id) m_vocabulary.add(sentencePiece().piece(m_model, id), id);
}

SentencePieceModel::~SentencePieceModel() {
  if (m_model != nullptr) sentencePiece().close(m_model);
}

void SentencePieceModel::tokenize(const std::u32string& word, std::vector<TokenPiece>& out) const {
  const std::string text = encodeUtf8(word);
  std::vector<int> ids(text.size() + 8);
  std::vector<char> pieces(2 * text.size() + 64);
  char error[1024] = {0};
  for (;;) {
    int bytes = 0;
    const int count = sentencePiece().encode(m_model, text.data(), static_cast<int>(text.size()), ids.data(),
                                             static_cast<int>(ids.size()), pieces.data(),
                                             static_cast<int>(pieces.size()), &bytes, error, sizeof error);
    if (count < 0) throw DataError(std::string("SentencePiece could not encode the text: ") + error);
    if (static_cast<size_t>(count) <= ids.size() && static_cast<size_t>(bytes) <= pieces.size()) {
      const char* piece = pieces.data();
      for (int i = 0; i < count; ++i) {
        out.push_back({ids[static_cast<size_t>(i)], piece});
        piece += out.back().piece.size() + 1;
      }
      return;
    }
    ids.resize(std::max(ids.size(), static_cast<size_t>(count)));
    pieces.resize(std::max(pieces.size(), static_cast<size_t>(bytes)));
  }
}

std::unique_ptr<TextTokenizer> readSentencePieceModel(const std::filesystem::path& file) {
  TokenizerParts parts;
  parts.model = std::make_unique<SentencePieceModel>(file);
  parts.description = "SentencePiece";
  return std::make_unique<TextTokenizer>(std::move(parts));
}

}  // namespace wb::text
