#include "text/sentencepiece_library.h"

#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>

#include "workbench/errors.h"

namespace wb::text {
namespace {

constexpr const char* kModule = "libworkbench-sentencepiece.so";

std::string executableDir() {
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string() : self.parent_path().string();
}

std::vector<std::string> candidates() {
  std::vector<std::string> paths;
  if (const char* set = std::getenv("TORCH_WORKBENCH_SENTENCEPIECE"); set != nullptr && *set != '\0') {
    return {set};
  }
  if (const std::string dir = executableDir(); !dir.empty()) {
    paths.push_back(dir + "/../lib/torch-workbench/" + kModule);
  }
#ifdef WB_SENTENCEPIECE_BRIDGE
  paths.push_back(WB_SENTENCEPIECE_BRIDGE);
#endif
  return paths;
}

// A link-map namespace of its own (dlmopen): SentencePiece and its protobuf see only each other and their own
// C++ runtime. RTLD_DEEPBIND is not enough: with it SentencePiece's std::cerr is libstdc++'s uninitialized
// original, not the program's copy, and its first log line crashes. Only C strings and ints cross.
void* openModule(const std::string& path) {
  return ::dlmopen(LM_ID_NEWLM, path.c_str(), RTLD_NOW | RTLD_LOCAL);
}

template <typename F>
void bind(void* library, const char* name, F& function, std::string& missing) {
  function = reinterpret_cast<F>(::dlsym(library, name));
  if (function == nullptr) missing += std::string(missing.empty() ? "" : ", ") + name;
}

SentencePieceFunctions load() {
  std::string tried;
  for (const std::string& path : candidates()) {
    void* library = openModule(path);
    if (library == nullptr) {
      tried += "\n  " + path + ": " + ::dlerror();
      continue;
    }
    SentencePieceFunctions f;
    std::string missing;
    bind(library, "wbsp_open", f.open, missing);
    bind(library, "wbsp_close", f.close, missing);
    bind(library, "wbsp_piece_count", f.piece_count, missing);
    bind(library, "wbsp_piece", f.piece, missing);
    bind(library, "wbsp_piece_id", f.piece_id, missing);
    bind(library, "wbsp_special_id", f.special_id, missing);
    bind(library, "wbsp_encode", f.encode, missing);
    bind(library, "wbsp_train", f.train, missing);
    if (!missing.empty()) throw DataError(path + " lacks " + missing, "reinstall Torch Workbench");
    return f;  // loaded for the process's life: its pieces are handed out as pointers
  }
  throw DataError(
      std::string("SentencePiece models need ") + kModule + ", which did not load:" + tried,
      "install Debian's libsentencepiece0 (a build needs libsentencepiece-dev) and reinstall Torch "
      "Workbench, or set TORCH_WORKBENCH_SENTENCEPIECE to the module's path");
}

}  // namespace

const SentencePieceFunctions& sentencePiece() {
  static std::once_flag once;
  static SentencePieceFunctions functions;
  static std::string failure, hint;
  std::call_once(once, [] {
    try {
      functions = load();
    } catch (const DataError& e) {
      failure = e.what();
      hint = e.hint();
    }
  });
  if (!failure.empty()) throw DataError(failure, hint);
  return functions;
}

void trainSentencePiece(const std::vector<std::string>& flags) {
  std::string joined;
  for (const std::string& flag : flags) joined += (joined.empty() ? "" : " ") + flag;
  char error[1024] = {0};
  if (sentencePiece().train(joined.c_str(), error, sizeof error) != 0) {
    throw DataError(std::string("SentencePiece could not train: ") + error);
  }
}

}  // namespace wb::text
