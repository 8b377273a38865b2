// The weights readers (backend/src/weights) against files torch itself wrote: tests/fixtures/weights/, made
// by scripts/make_weights_fixtures.py with Debian's torch 1.13 (torch1_*) and pip's torch 2.x (torch2_*).
// Every tensor of a torch.save file equals its copy in the safetensors file the script wrote beside it;
// pickles that would run code are refused by name and run nothing; truncated files and lying headers are
// refused by name.

#include "weights/weights_reader.h"

#include <torch/torch.h>
// LibTorch's zip reader only after torch.h: clang needs c10::IValue complete first.
#include <caffe2/serialize/inline_container.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "export/safetensors_writer.h"
#include "support/temporary_folder.h"
#include "support/test_helpers.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::userErrorOf;

const char* const kWriters[] = {"torch1_", "torch2_"};

std::string fixture(const std::string& name) {
  return std::string(WB_SOURCE_DIR) + "/tests/fixtures/weights/" + name;
}

// The file in a folder of its own, removed when the test ends.
std::string scratchFile(const std::string& name, const std::string& bytes) {
  const std::string path = test::folderForThisTest("weights-test") + "/" + name;
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

std::map<std::string, torch::Tensor> byName(const NamedTensors& tensors) {
  std::map<std::string, torch::Tensor> out;
  for (const auto& [name, tensor] : tensors) out[name] = tensor;
  return out;
}

void expectSameTensors(const NamedTensors& got, const NamedTensors& expected, const std::string& what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  const auto want = byName(expected);
  for (const auto& [name, tensor] : got) {
    ASSERT_TRUE(want.count(name)) << what << ": unexpected " << name;
    const torch::Tensor& w = want.at(name);
    EXPECT_EQ(tensor.scalar_type(), w.scalar_type()) << what << ": " << name;
    EXPECT_EQ(tensor.sizes(), w.sizes()) << what << ": " << name;
    EXPECT_TRUE(torch::equal(tensor, w)) << what << ": " << name;
  }
}

TEST(WeightsReader, TorchSaveEqualsSafetensorsForEveryDtype) {
  for (const std::string writer : kWriters) {
    const WeightsFileContents st = readWeightsFile(fixture(writer + "dtypes.safetensors"));
    const WeightsFileContents pt = readWeightsFile(fixture(writer + "dtypes.pt"));
    EXPECT_EQ(st.format, WeightsFormat::Safetensors);
    EXPECT_EQ(pt.format, WeightsFormat::TorchZip);
    EXPECT_EQ(st.metadata.at("written_by"), "make_weights_fixtures.py");
    EXPECT_TRUE(pt.notes.empty());
    expectSameTensors(pt.tensors, st.tensors, writer + "dtypes");
    // In file order, every dtype safetensors names.
    ASSERT_EQ(pt.tensors.size(), 14u);
    EXPECT_EQ(pt.tensors[0].first, "f64");
    const auto tensors = byName(pt.tensors);
    EXPECT_EQ(tensors.at("bf16").scalar_type(), torch::kBFloat16);
    EXPECT_EQ(tensors.at("bool").scalar_type(), torch::kBool);
    EXPECT_EQ(tensors.at("i64")[2].item<int64_t>(), int64_t(1) << 62);
    EXPECT_EQ(tensors.at("scalar").dim(), 0);
    // "view" is base[1:, 1:4].t(): a strided view at an offset of the storage it shares with "base".
    const torch::Tensor view = tensors.at("view");
    EXPECT_FALSE(view.is_contiguous());
    EXPECT_EQ(view.storage_offset(), 6);
    EXPECT_EQ(view.stride(0), 1);
    EXPECT_EQ(view.stride(1), 5);
    EXPECT_TRUE(view.is_alias_of(tensors.at("base")));
  }
}

TEST(WeightsReader, WrappersAreUnwrappedAndOtherEntriesNoted) {
  for (const std::string writer : kWriters) {
    const NamedTensors module = readSafetensorsFile(fixture(writer + "module.safetensors")).tensors;
    const WeightsFileContents wrapped = readWeightsFile(fixture(writer + "wrapped.pt"));
    expectSameTensors(wrapped.tensors, module, writer + "wrapped");
    EXPECT_EQ(wrapped.tensors[0].first, "0.weight");
    EXPECT_EQ(byName(wrapped.tensors).at("1.num_batches_tracked").item<int64_t>(), 7);
    ASSERT_EQ(wrapped.notes.size(), 3u);
    EXPECT_TRUE(contains(wrapped.notes[0], "unwrapped the checkpoint's \"state_dict\"")) << wrapped.notes[0];
    EXPECT_TRUE(contains(wrapped.notes[1], "\"epoch\"")) << wrapped.notes[1];
    EXPECT_TRUE(contains(wrapped.notes[2], "\"optimizer\"")) << wrapped.notes[2];
    const WeightsFileContents model = readWeightsFile(fixture(writer + "model_key.pt"));
    expectSameTensors(model.tensors, module, writer + "model_key");
    ASSERT_EQ(model.notes.size(), 1u);
    EXPECT_TRUE(contains(model.notes[0], "\"model\""));
  }
}

TEST(WeightsReader, TorchScriptGivesItsParametersAndBuffers) {
  const WeightsFileContents script = readWeightsFile(fixture("torch1_scripted.pt"));
  EXPECT_EQ(script.format, WeightsFormat::TorchScript);
  expectSameTensors(script.tensors, readSafetensorsFile(fixture("torch1_module.safetensors")).tensors,
                    "scripted");
}

TEST(WeightsReader, PicklesThatCallCodeAreRefusedByNameAndRunNothing) {
  const std::map<std::string, std::string> cases = {{"evil_os_system.pt", "posix.system"},
                                                    {"evil_eval.pt", "builtins.eval"},
                                                    {"evil_subprocess.pt", "subprocess.Popen"},
                                                    {"evil_numpy.pt", "numpy."}};
  for (const std::string writer : kWriters) {
    for (const auto& [name, global] : cases) {
      const std::string file = fixture(writer + name);
      const std::string message = userErrorOf([&] { readWeightsFile(file); });
      EXPECT_TRUE(contains(message, "the pickle in " + file + " calls " + global)) << message;
      EXPECT_TRUE(contains(message, "it was not loaded")) << message;
    }
  }
  for (const char* marker : {"wb_weights_pwned_os", "wb_weights_pwned_eval", "wb_weights_pwned_subprocess"})
    EXPECT_FALSE(fs::exists(marker)) << marker;
}

TEST(WeightsReader, LegacyAndUnknownFormatsAreRefusedWithWhatToDo) {
  for (const std::string writer : kWriters) {
    const std::string file = fixture(writer + "legacy.pt");
    try {
      readWeightsFile(file);
      ADD_FAILURE() << "no UserError for " << file;
    } catch (const UserError& error) {
      EXPECT_TRUE(contains(error.what(), "legacy format")) << error.what();
      EXPECT_TRUE(contains(error.hint(), "_use_new_zipfile_serialization=True")) << error.hint();
    }
  }
  EXPECT_TRUE(contains(userErrorOf([] { readWeightsFile(scratchFile("text.bin", "hello, weights")); }),
                       "neither a safetensors file nor a torch.save zip archive"));
  EXPECT_TRUE(contains(userErrorOf([] { readWeightsFile("/nonexistent/w.safetensors"); }), "cannot open"));
}

TEST(WeightsReader, TruncatedFilesAreRefused) {
  for (const std::string name : {"torch1_dtypes.pt", "torch2_dtypes.pt", "torch1_dtypes.safetensors"}) {
    const std::string bytes = test::readBytes(fixture(name));
    for (size_t keep : {size_t(0), size_t(3), size_t(8), size_t(9), size_t(100), bytes.size() / 2,
                        bytes.size() - 30, bytes.size() - 1}) {
      const std::string file = scratchFile("cut-" + name, bytes.substr(0, keep));
      const std::string message = userErrorOf([&] { readWeightsFile(file); });
      EXPECT_TRUE(contains(message, file)) << name << " cut to " << keep << ": " << message;
    }
  }
}

// A safetensors file with the given header JSON and `data` bytes after it.
std::string safetensorsWith(const std::string& header, size_t data, uint64_t length_override = 0) {
  std::string out(8, '\0');
  const uint64_t length = length_override ? length_override : header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  return out + header + std::string(data, '\0');
}

TEST(WeightsReader, SafetensorsHeadersThatLieAreRefusedNamingTheTensor) {
  const std::vector<std::tuple<std::string, size_t, std::string>> cases = {
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
       12, "tensor \"b\" ends at byte 16, past the data's 12 bytes"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
       12, "tensor \"b\" starts at byte 4 of the data, inside the tensor before it (overlap)"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[12,20]}})",
       20, "after a gap"},
      {R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8,
       "tensor \"a\": data_offsets [0, 8) do not hold"},
      {R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4, "tensor \"a\": a shape dimension"},
      {R"({"a":{"dtype":"U8","shape":[4294967296,4294967296,16],"data_offsets":[0,0]}})", 0, "(overflowing)"},
      {R"({"a":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}})", 1, "tensor \"a\" has dtype F8_E4M3"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
       8, "names tensor \"a\" twice"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 9, "5 bytes after the last tensor"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"__metadata__":{"n":1}})", 4,
       "__metadata__ \"n\""},
      {R"({"a":{"dtype":"F32","shape":[1],"data_off)", 4, "the header is not JSON"},
  };
  for (const auto& [header, data, expected] : cases) {
    const std::string file = scratchFile("lie.safetensors", safetensorsWith(header, data));
    const std::string message = userErrorOf([&] { readWeightsFile(file); });
    EXPECT_TRUE(contains(message, file + ": not a valid safetensors file") ||
                contains(message, file + ": tensor"))
        << message;
    EXPECT_TRUE(contains(message, expected)) << header << "\n" << message;
  }
  EXPECT_TRUE(contains(userErrorOf([] { readSafetensorsBytes(safetensorsWith(R"(["a"])", 0), "x"); }),
                       "does not start with '{'"));
  const std::string header = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  for (uint64_t length : {uint64_t(1) << 40, uint64_t(200) << 20, uint64_t(header.size() + 5)}) {
    const std::string message =
        userErrorOf([&] { readSafetensorsBytes(safetensorsWith(header, 4, length), "x"); });
    EXPECT_TRUE(contains(message, "the header length " + std::to_string(length))) << message;
  }
}

TEST(WeightsReader, SafetensorsRoundTripWithTheExportWriter) {
  const NamedTensors tensors = {{"f64", torch::randn({2, 3}, torch::kFloat64)},
                                {"f32", torch::randn({4})},
                                {"f16", torch::randn({3}).to(torch::kFloat16)},
                                {"bf16", torch::randn({3}).to(torch::kBFloat16)},
                                {"i64", torch::arange(5)},
                                {"i32", torch::arange(-3, 3, torch::kInt32)},
                                {"i16", torch::arange(4, torch::kInt16)},
                                {"i8", torch::arange(-2, 2, torch::kInt8)},
                                {"u8", torch::arange(250, 256, torch::kUInt8)},
                                {"bool", torch::tensor({true, false})},
                                {"empty", torch::zeros({0, 2})},
                                {"scalar", torch::tensor(1.5)},
                                {"strided", torch::randn({3, 4}).t()}};
  const WeightsFileContents back =
      readSafetensorsBytes(safetensorsBytes(tensors, {{"format", "pt"}}), "roundtrip.safetensors");
  expectSameTensors(back.tensors, tensors, "round trip");
  EXPECT_EQ(back.metadata.at("format"), "pt");
}

// A torch.save-style archive with a hand-written data.pkl and a 16-byte storage data/0.
std::string archiveWith(const std::string& name, const std::string& pickle) {
  const fs::path dir = fs::path(scratchFile("dummy", "")).parent_path();
  const std::string path = (dir / name).string();
  caffe2::serialize::PyTorchStreamWriter writer(path);
  writer.writeRecord("data.pkl", pickle.data(), pickle.size());
  const std::string storage(16, '\0');
  writer.writeRecord("data/0", storage.data(), storage.size());
  writer.writeEndOfFile();
  return path;
}

// {"a": _rebuild_tensor_v2(FloatStorage "0" of `numel`, offset, (size,), (1,), False, OrderedDict())}
std::string tensorPickle(int numel, int offset, int size) {
  auto str = [](const std::string& s) {
    return "X" + std::string(1, char(s.size())) + std::string(3, '\0') + s;
  };
  auto int1 = [](int v) { return "K" + std::string(1, char(v)); };
  return "\x80\x02}(" + str("a") + "ctorch._utils\n_rebuild_tensor_v2\n((" + str("storage") +
         "ctorch\nFloatStorage\n" + str("0") + str("cpu") + int1(numel) + "tQ" + int1(offset) + int1(size) +
         "\x85" + int1(1) + "\x85\x89" + "ccollections\nOrderedDict\n)R" + "tRu.";
}

TEST(WeightsReader, TorchZipTensorsOutsideTheirStorageAreRefused) {
  const WeightsFileContents fine = readTorchZipFile(archiveWith("fine.pt", tensorPickle(4, 1, 3)));
  ASSERT_EQ(fine.tensors.size(), 1u);
  EXPECT_EQ(fine.tensors[0].second.sizes(), torch::IntArrayRef({3}));
  const std::string outside = archiveWith("outside.pt", tensorPickle(4, 2, 3));
  EXPECT_TRUE(
      contains(userErrorOf([&] { readTorchZipFile(outside); }), "places a tensor outside its storage 0"));
  // A stride of 0: 200 elements from one, what expand() gives.
  std::string repeated_pickle = tensorPickle(4, 0, 200);
  repeated_pickle.replace(repeated_pickle.find("\x85K\x01\x85"), 4, std::string("\x85K\x00\x85", 4));
  const std::string repeated = archiveWith("repeated.pt", repeated_pickle);
  EXPECT_TRUE(contains(userErrorOf([&] { readTorchZipFile(repeated); }), "more elements than its storage 0"));
  const std::string wrong_size = archiveWith("size.pt", tensorPickle(5, 0, 3));
  EXPECT_TRUE(contains(userErrorOf([&] { readTorchZipFile(wrong_size); }),
                       "expects 20 bytes in storage 0, and the archive holds 16"));
  const std::string truncated = archiveWith("cut.pt", tensorPickle(4, 0, 3).substr(0, 40));
  EXPECT_TRUE(contains(userErrorOf([&] { readTorchZipFile(truncated); }), "the pickle in " + truncated));
  const std::string opcode = archiveWith("opcode.pt", "\x80\x02\x81.");  // NEWOBJ
  EXPECT_TRUE(contains(userErrorOf([&] { readTorchZipFile(opcode); }), "uses pickle opcode 0x81"));
}

}  // namespace
}  // namespace wb
