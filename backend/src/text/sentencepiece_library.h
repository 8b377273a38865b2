#pragma once
// Debian's SentencePiece, reached through libworkbench-sentencepiece.so (sentencepiece_bridge/), loaded once
// with dlmopen in a link-map namespace of its own (why: sentencepiece_bridge.h). Found at
// TORCH_WORKBENCH_SENTENCEPIECE when set, else installed beside the programs (<prefix>/lib/torch-workbench/),
// else in the build tree.

#include <string>
#include <vector>

namespace wb::text {

struct SentencePieceFunctions {
  void* (*open)(const char*, char*, int) = nullptr;
  void (*close)(void*) = nullptr;
  int (*piece_count)(void*) = nullptr;
  const char* (*piece)(void*, int) = nullptr;
  int (*piece_id)(void*, const char*) = nullptr;
  int (*special_id)(void*, int) = nullptr;
  int (*encode)(void*, const char*, int, int*, int, char*, int, int*, char*, int) = nullptr;
  int (*train)(const char*, char*, int) = nullptr;
};

// The functions; DataError saying where it looked (and what to install) when the module does not load.
const SentencePieceFunctions& sentencePiece();

// SentencePieceTrainer with its flags; DataError with SentencePiece's message when it refuses.
void trainSentencePiece(const std::vector<std::string>& flags);

}  // namespace wb::text
