// libworkbench-sentencepiece.so: sentencepiece_bridge.h's functions over Debian's SentencePiece. No exception
// crosses the C boundary.
#include "sentencepiece_bridge.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace {

void say(const std::string& message, char* error, int size) {
  if (error == nullptr || size <= 0) return;
  std::strncpy(error, message.c_str(), static_cast<size_t>(size) - 1);
  error[size - 1] = '\0';
}

sentencepiece::SentencePieceProcessor* processor(void* model) {
  return static_cast<sentencepiece::SentencePieceProcessor*>(model);
}

}  // namespace

extern "C" {

void* wbsp_open(const char* model_path, char* error, int error_size) {
  try {
    auto model = std::make_unique<sentencepiece::SentencePieceProcessor>();
    const auto status = model->Load(model_path);
    if (!status.ok()) {
      say(status.ToString(), error, error_size);
      return nullptr;
    }
    return model.release();
  } catch (const std::exception& e) {
    say(e.what(), error, error_size);
    return nullptr;
  }
}

void wbsp_close(void* model) {
  delete processor(model);
}

int wbsp_piece_count(void* model) {
  return processor(model)->GetPieceSize();
}

const char* wbsp_piece(void* model, int id) {
  if (id < 0 || id >= processor(model)->GetPieceSize()) return "";
  return processor(model)->IdToPiece(id).c_str();
}

int wbsp_piece_id(void* model, const char* piece) {
  const int id = processor(model)->PieceToId(piece);
  // PieceToId answers the unknown id for a piece it lacks; the unknown piece itself is the one exception.
  if (id == processor(model)->unk_id() && processor(model)->IdToPiece(id) != piece) return -1;
  return id;
}

int wbsp_special_id(void* model, int which) {
  switch (which) {
    case 0:
      return processor(model)->unk_id();
    case 1:
      return processor(model)->bos_id();
    case 2:
      return processor(model)->eos_id();
    case 3:
      return processor(model)->pad_id();
    default:
      return -1;
  }
}

int wbsp_encode(void* model, const char* text, int length, int* ids, int capacity, char* pieces,
                int pieces_capacity, int* pieces_bytes, char* error, int error_size) {
  try {
    std::vector<std::string> encoded;
    const auto status =
        processor(model)->Encode(std::string_view(text, static_cast<size_t>(length)), &encoded);
    if (!status.ok()) {
      say(status.ToString(), error, error_size);
      return -1;
    }
    size_t bytes = 0;
    for (const std::string& piece : encoded) bytes += piece.size() + 1;
    *pieces_bytes = static_cast<int>(bytes);
    if (encoded.size() > static_cast<size_t>(capacity) || bytes > static_cast<size_t>(pieces_capacity)) {
      return static_cast<int>(encoded.size());
    }
    char* at = pieces;
    for (size_t i = 0; i < encoded.size(); ++i) {
      // An unknown piece is the text it stands for, which PieceToId answers with the unknown id.
      ids[i] = processor(model)->PieceToId(encoded[i]);
      std::memcpy(at, encoded[i].c_str(), encoded[i].size() + 1);
      at += encoded[i].size() + 1;
    }
    return static_cast<int>(encoded.size());
  } catch (const std::exception& e) {
    say(e.what(), error, error_size);
    return -1;
  }
}

int wbsp_train(const char* flags, char* error, int error_size) {
  try {
    const auto status = sentencepiece::SentencePieceTrainer::Train(flags);
    if (!status.ok()) {
      say(status.ToString(), error, error_size);
      return -1;
    }
    return 0;
  } catch (const std::exception& e) {
    say(e.what(), error, error_size);
    return -1;
  }
}

}  // extern "C"
