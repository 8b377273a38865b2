#pragma once
// The C functions of libworkbench-sentencepiece.so, a module of our own around Debian's SentencePiece
// library. The engine loads it with dlopen (RTLD_LOCAL | RTLD_DEEPBIND, text/sentencepiece_library.*) instead
// of linking SentencePiece: that library carries a protobuf of its own whose symbols it exports, and in one
// global symbol scope with LibTorch's protobuf (Debian's LibTorch links libprotobuf.so.32) each would call
// the other's functions. Loaded apart, each keeps its own.

#ifdef __cplusplus
extern "C" {
#endif

// A loaded .model, or null with the library's message in `error`.
void* wbsp_open(const char* model_path, char* error, int error_size);
void wbsp_close(void* model);
int wbsp_piece_count(void* model);
// The piece of an id (valid while the model is open); "" for an id out of range.
const char* wbsp_piece(void* model, int id);
// The id of a piece, or -1 when the model lacks it.
int wbsp_piece_id(void* model, const char* piece);
// 0: unknown, 1: begin of sentence, 2: end of sentence, 3: padding; -1 where the model has none.
int wbsp_special_id(void* model, int which);
// `text` (UTF-8, `length` bytes) into ids and pieces as SentencePiece's EncodeAsPieces gives them (an unknown
// piece as the text it stands for), the pieces one after another, each ended by '\0', in `pieces`. Returns
// the count and sets `*pieces_bytes`; when either exceeds its room (`capacity`, `pieces_capacity`) nothing is
// written and the call is made again with room for them. -1 with the message in `error`.
int wbsp_encode(void* model, const char* text, int length, int* ids, int capacity, char* pieces,
                int pieces_capacity, int* pieces_bytes, char* error, int error_size);
// SentencePieceTrainer::Train with its command-line flags ("--input=... --model_prefix=...
// --vocab_size=..."); 0, or -1 with the message in `error`.
int wbsp_train(const char* flags, char* error, int error_size);

#ifdef __cplusplus
}
#endif
