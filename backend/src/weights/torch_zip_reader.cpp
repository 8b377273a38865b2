// torch.save's zip format (torch/serialization.py, _save): an archive <name>/ holding data.pkl (the pickled
// object, protocol 2), data/<key> (each storage's raw bytes), byteorder and version. LibTorch's own reader of
// that layout (caffe2::serialize::PyTorchStreamReader, in 1.13 and 2.x alike) opens the archive; data.pkl
// goes through RestrictedUnpickler, which accepts only what a state dict is made of:
//   collections.OrderedDict()                      an empty ordered dict (its _metadata state is ignored)
//   torch.<Type>Storage in a persistent id         ('storage', type, key, location, numel) -> data/<key>
//   torch._utils._rebuild_tensor_v2 / _rebuild_tensor (storage, offset, size, stride, ...) -> a view of it
//   torch._utils._rebuild_parameter(_with_state)   (tensor, requires_grad, hooks[, state]) -> the tensor
// Decisions: a top-level "state_dict" or "model" entry that is a dictionary is unwrapped (the rest of the top
// level is skipped, each with a note); nested dictionaries are not flattened (skipped with a note); entries
// that are not tensors (an epoch, a learning rate) are skipped with a note.

#include <torch/torch.h>
// LibTorch's zip reader only after torch.h: clang needs c10::IValue complete first.
#include <caffe2/serialize/inline_container.h>
#include <torch/script.h>
#include <torch/version.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "weights/restricted_unpickler.h"
#include "weights/weights_reader.h"
#include "workbench/errors.h"

namespace wb {

namespace {

using Kind = PickleValue::Kind;

const std::map<std::string, torch::ScalarType>& tzStorageTypes() {
  static const std::map<std::string, torch::ScalarType> kTypes = {
      {"torch.DoubleStorage", torch::kFloat64}, {"torch.FloatStorage", torch::kFloat32},
      {"torch.HalfStorage", torch::kFloat16},   {"torch.BFloat16Storage", torch::kBFloat16},
      {"torch.LongStorage", torch::kInt64},     {"torch.IntStorage", torch::kInt32},
      {"torch.ShortStorage", torch::kInt16},    {"torch.CharStorage", torch::kInt8},
      {"torch.ByteStorage", torch::kUInt8},     {"torch.BoolStorage", torch::kBool}};
  return kTypes;
}

bool tzAllowedGlobal(const std::string& global) {
  static const std::set<std::string> kCalls = {
      "collections.OrderedDict", "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_tensor",
      "torch._utils._rebuild_parameter", "torch._utils._rebuild_parameter_with_state"};
  return kCalls.count(global) > 0 || tzStorageTypes().count(global) > 0;
}

std::string tzKindWord(Kind kind) {
  switch (kind) {
    case Kind::None:
      return "None";
    case Kind::Bool:
      return "a bool";
    case Kind::Int:
      return "an integer";
    case Kind::Float:
      return "a number";
    case Kind::String:
      return "a string";
    case Kind::Tuple:
      return "a tuple";
    case Kind::List:
      return "a list";
    case Kind::Dict:
      return "a dictionary (nested dictionaries are not read)";
    default:
      return "not a tensor";
  }
}

// LibTorch's reader allocates the size an entry declares before it inflates it. On 2.x the size can be asked
// first, and an entry declaring more than it may hold is refused before that allocation; 1.13 has no such
// call (miniz still checks a stored entry's size against the archive; torch.save stores every entry
// uncompressed).
bool tzRecordFits(caffe2::serialize::PyTorchStreamReader& archive, const std::string& name, uint64_t limit) {
#if TORCH_VERSION_MAJOR >= 2
  return archive.getRecordSize(name) <= limit;
#else
  (void)archive;
  (void)name;
  (void)limit;
  return true;
#endif
}

class TorchZipLoader {
 public:
  TorchZipLoader(const std::string& file, caffe2::serialize::PyTorchStreamReader& archive)
      : m_file(file),
        m_archive(archive),
        m_unpickler(file, {tzAllowedGlobal,
                           [this](const std::string& global, const PickleValue& args) {
                             return reduce(global, args);
                           },
                           [this](const PickleValue& pid) { return persistentLoad(pid); }}) {}

  const PickleValue& load(const std::string& pickle) { return m_unpickler.load(pickle); }

 private:
  PickleValue* persistentLoad(const PickleValue& pid);
  PickleValue* reduce(const std::string& global, const PickleValue& args);
  PickleValue* rebuildTensor(const PickleValue& args);
  torch::Tensor loadStorage(const std::string& key, torch::ScalarType type, int64_t numel);
  std::vector<int64_t> intTuple(const PickleValue* value, const char* what);

  std::string m_file;
  caffe2::serialize::PyTorchStreamReader& m_archive;
  RestrictedUnpickler m_unpickler;
  std::map<std::string, PickleValue*> m_storages;
};

torch::Tensor TorchZipLoader::loadStorage(const std::string& key, torch::ScalarType type, int64_t numel) {
  const std::string record = "data/" + key;
  uint64_t bytes = 0;
  if (numel < 0 || __builtin_mul_overflow(static_cast<uint64_t>(numel), c10::elementSize(type), &bytes))
    m_unpickler.fail("gives storage " + key + " an impossible size");
  if (key.empty() || key.find('/') != std::string::npos || !m_archive.hasRecord(record))
    m_unpickler.fail("refers to storage \"" + key + "\", which the archive does not hold (truncated?)");
  at::DataPtr data;
  size_t size = 0;
  const bool fits = tzRecordFits(m_archive, record, bytes);
  if (fits) std::tie(data, size) = m_archive.getRecord(record);
  if (!fits || size != bytes) {
    m_unpickler.fail("expects " + std::to_string(bytes) + " bytes in storage " + key +
                     ", and the archive holds " + (fits ? std::to_string(size) : std::string("more")));
  }
  torch::Tensor storage = torch::empty({numel}, torch::TensorOptions().dtype(type));
  if (bytes > 0) std::memcpy(storage.data_ptr(), data.get(), bytes);
  if (type == torch::kBool) {
    auto* p = static_cast<unsigned char*>(storage.data_ptr());
    for (int64_t i = 0; i < numel; ++i) p[i] = p[i] != 0;
  }
  return storage;
}

PickleValue* TorchZipLoader::persistentLoad(const PickleValue& pid) {
  const auto& items = pid.items;
  if (pid.kind != Kind::Tuple || items.size() != 5 || items[0]->kind != Kind::String ||
      items[0]->text != "storage" || items[1]->kind != Kind::Global || items[2]->kind != Kind::String ||
      items[4]->kind != Kind::Int)
    m_unpickler.fail("holds a persistent id that is not torch.save's ('storage', type, key, location, size)");
  const auto type = tzStorageTypes().find(items[1]->text);
  if (type == tzStorageTypes().end()) m_unpickler.fail("uses " + items[1]->text + " as a storage type");
  const std::string& key = items[2]->text;
  const auto known = m_storages.find(key);
  if (known != m_storages.end()) {
    if (known->second->tensor.scalar_type() != type->second ||
        known->second->tensor.numel() != items[4]->integer)
      m_unpickler.fail("gives storage " + key + " two different types or sizes");
    return known->second;
  }
  PickleValue* storage = m_unpickler.make(Kind::Storage);
  storage->text = key;
  storage->tensor = loadStorage(key, type->second, items[4]->integer);
  m_storages[key] = storage;
  return storage;
}

std::vector<int64_t> TorchZipLoader::intTuple(const PickleValue* value, const char* what) {
  if (value->kind != Kind::Tuple || value->items.size() > static_cast<size_t>(kMaxTensorDims))
    m_unpickler.fail(std::string("gives a tensor a ") + what + " that is not a tuple of at most 64 integers");
  std::vector<int64_t> out;
  for (const PickleValue* item : value->items) {
    if (item->kind != Kind::Int || item->integer < 0)
      m_unpickler.fail(std::string("gives a tensor a ") + what + " with a negative or non-integer entry");
    out.push_back(item->integer);
  }
  return out;
}

// The view (offset, size, stride) must lie inside its storage: its last element's index is
// offset + sum((size_i - 1) * stride_i), computed without overflow.
PickleValue* TorchZipLoader::rebuildTensor(const PickleValue& args) {
  const auto& a = args.items;
  if (a.size() < 4 || a[0]->kind != Kind::Storage || a[1]->kind != Kind::Int || a[1]->integer < 0)
    m_unpickler.fail("rebuilds a tensor from arguments that are not (storage, offset, size, stride, ...)");
  const std::vector<int64_t> size = intTuple(a[2], "size");
  const std::vector<int64_t> stride = intTuple(a[3], "stride");
  if (size.size() != stride.size())
    m_unpickler.fail("gives a tensor a size and a stride of different lengths");
  const torch::Tensor& storage = a[0]->tensor;
  const int64_t offset = a[1]->integer;
  bool empty = false;
  for (int64_t s : size) empty = empty || s == 0;
  int64_t last = offset;
  bool overflow = false;
  for (size_t i = 0; i < size.size() && !empty; ++i) {
    int64_t span = 0;
    overflow = overflow || __builtin_mul_overflow(size[i] - 1, stride[i], &span) ||
               __builtin_add_overflow(last, span, &last);
  }
  if (overflow || offset > storage.numel() || (!empty && last >= storage.numel())) {
    m_unpickler.fail("places a tensor outside its storage " + a[0]->text + " (" +
                     std::to_string(storage.numel()) + " elements)");
  }
  // A view larger than its storage repeats elements (a stride of 0, as expand() gives): never a trained
  // weight, and a lying file could make a consumer copy 2^62 elements out of one.
  int64_t numel = 1;
  for (int64_t s : size) overflow = overflow || __builtin_mul_overflow(numel, s, &numel);
  if (overflow || numel > storage.numel()) {
    m_unpickler.fail("gives a tensor more elements than its storage " + a[0]->text +
                     " holds (repeated elements: save tensor.contiguous() instead)");
  }
  PickleValue* tensor = m_unpickler.make(Kind::Tensor);
  tensor->tensor = storage.as_strided(size, stride, offset);
  return tensor;
}

PickleValue* TorchZipLoader::reduce(const std::string& global, const PickleValue& args) {
  if (global == "collections.OrderedDict") {
    if (!args.items.empty()) m_unpickler.fail("calls collections.OrderedDict with arguments");
    return m_unpickler.make(Kind::Dict);
  }
  if (global == "torch._utils._rebuild_tensor_v2" || global == "torch._utils._rebuild_tensor")
    return rebuildTensor(args);
  if (global == "torch._utils._rebuild_parameter" || global == "torch._utils._rebuild_parameter_with_state") {
    if (args.items.empty() || args.items[0]->kind != Kind::Tensor)
      m_unpickler.fail("calls " + global + " without a tensor");
    return args.items[0];
  }
  m_unpickler.fail("calls " + global + " (a storage type is only read, never called)");
}

const PickleValue* tzFind(const PickleValue& dict, const std::string& key) {
  for (const auto& [k, v] : dict.entries)
    if (k->kind == Kind::String && k->text == key) return v;
  return nullptr;
}

// The state dict inside the pickled object: the object itself, or its "state_dict" / "model" entry.
WeightsFileContents tzCollect(const PickleValue& root, const std::string& file) {
  if (root.kind != Kind::Dict) {
    throw UserError(file + " holds " + tzKindWord(root.kind) + ", not a dictionary of tensors",
                    "save the model's state_dict() with torch.save");
  }
  WeightsFileContents contents;
  contents.format = WeightsFormat::TorchZip;
  const PickleValue* dict = &root;
  std::string wrapper;
  for (const char* key : {"state_dict", "model"}) {
    const PickleValue* inner = tzFind(root, key);
    if (inner && inner->kind == Kind::Dict && wrapper.empty()) {
      dict = inner;
      wrapper = key;
      contents.notes.push_back(std::string("unwrapped the checkpoint's \"") + key + "\" entry");
    }
  }
  for (const auto& [key, value] : root.entries) {
    if (dict != &root && !(key->kind == Kind::String && key->text == wrapper))
      contents.notes.push_back("skipped \"" + (key->kind == Kind::String ? key->text : std::string("?")) +
                               "\" beside the \"" + wrapper + "\" entry");
  }
  std::set<std::string> names;
  for (const auto& [key, value] : dict->entries) {
    const std::string name =
        key->kind == Kind::String ? key->text : std::string("(a key that is not a string)");
    if (key->kind != Kind::String || value->kind != Kind::Tensor) {
      contents.notes.push_back("skipped \"" + name + "\": " + tzKindWord(value->kind));
      continue;
    }
    if (!names.insert(name).second)
      throw UserError(file + " names tensor \"" + name + "\" twice", "save the model's state_dict() again");
    contents.tensors.emplace_back(name, value->tensor);
  }
  return contents;
}

std::string tzFirstLine(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// A small entry (data.pkl, byteorder): never more than the file holds, as torch.save stores it uncompressed.
std::string tzRecordText(caffe2::serialize::PyTorchStreamReader& archive, const std::string& name,
                         const std::string& file) {
  std::error_code error;
  const uint64_t file_size = std::filesystem::file_size(file, error);
  if (error || !tzRecordFits(archive, name, file_size)) {
    throw UserError(file + ": its entry " + name + " declares more bytes than the file holds",
                    "the file is damaged; save or download it again");
  }
  at::DataPtr data;
  size_t size = 0;
  std::tie(data, size) = archive.getRecord(name);
  return std::string(static_cast<const char*>(data.get()), size);
}

}  // namespace

WeightsFileContents readTorchZipFile(const std::string& file) {
  try {
    caffe2::serialize::PyTorchStreamReader archive(file);
    if (archive.hasRecord("constants.pkl") || !archive.hasRecord("data.pkl")) {
      throw UserError(
          file + " is a zip archive without torch.save's data.pkl" +
              (archive.hasRecord("constants.pkl") ? std::string(" (a TorchScript file)") : ""),
          "a TorchScript file is read through readWeightsFile; otherwise save the state_dict() again");
    }
    if (archive.hasRecord("byteorder") && tzRecordText(archive, "byteorder", file) != "little")
      throw UserError(file + " was written on a big-endian machine", "save it again on a little-endian one");
    TorchZipLoader loader(file, archive);
    return tzCollect(loader.load(tzRecordText(archive, "data.pkl", file)), file);
  } catch (const UserError&) {
    throw;
  } catch (const c10::Error& error) {
    throw UserError(
        file + ": not a readable torch.save archive: " + tzFirstLine(error.what_without_backtrace()),
        "the file is truncated or damaged; save or download it again");
  }
}

WeightsFileContents readTorchScriptFile(const std::string& file) {
  WeightsFileContents contents;
  contents.format = WeightsFormat::TorchScript;
  try {
    torch::jit::Module module = torch::jit::load(file, torch::kCPU);
    for (const auto& parameter : module.named_parameters(/*recurse=*/true))
      contents.tensors.emplace_back(parameter.name, parameter.value.detach());
    for (const auto& buffer : module.named_buffers(/*recurse=*/true))
      contents.tensors.emplace_back(buffer.name, buffer.value.detach());
  } catch (const c10::Error& error) {
    throw UserError(
        file + ": not a readable TorchScript file: " + tzFirstLine(error.what_without_backtrace()),
        "the file is truncated or damaged, or written by a newer torch; save it again");
  }
  contents.notes.push_back("read the parameters and buffers of a TorchScript module");
  return contents;
}

}  // namespace wb
