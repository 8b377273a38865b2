#include "data/dataset_catalog.h"

#include <filesystem>

#include "data/dataset.h"
#include "workbench/errors.h"

namespace wb {

namespace fs = std::filesystem;

namespace {

const char* kCifar10Url = "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz";
const char* kMnistUrl = "https://ossci-datasets.s3.amazonaws.com/mnist/";

std::vector<std::string> digitNames() {
  std::vector<std::string> names;
  for (int digit = 0; digit < 10; ++digit) names.push_back(std::to_string(digit));
  return names;
}

bool isFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::string missingIdxHint(const DataConfig& config, const std::string& folder) {
  if (config.dataset == DatasetName::FashionMnist) {
    if (folder == defaultDataPath(DatasetName::FashionMnist)) {
      return "install it with `apt-get install dataset-fashion-mnist`, or set data.path to a folder holding "
             "the four Fashion-MNIST IDX files";
    }
    return "set data.path to a folder holding train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, "
           "t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz (gzipped or not), or leave it empty to "
           "use " +
           defaultDataPath(DatasetName::FashionMnist) + " (`apt-get install dataset-fashion-mnist`)";
  }
  return std::string(
             "download train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz "
             "and t10k-labels-idx1-ubyte.gz from ") +
         kMnistUrl + " into " + folder + ", or set data.path to a folder holding them";
}

}  // namespace

DatasetInfo datasetInfo(DatasetName dataset) {
  switch (dataset) {
    case DatasetName::FashionMnist:
      return {DatasetKind::Idx,
              "Fashion-MNIST",
              {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"},
              10};
    case DatasetName::Mnist:
      return {DatasetKind::Idx, "MNIST", digitNames(), 10};
    case DatasetName::Cifar10:
      return {DatasetKind::Cifar10,
              "CIFAR-10",
              {"airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"},
              10};
    case DatasetName::Csv:
      return {DatasetKind::Csv, "CSV", {}, 0};
    case DatasetName::ImageFolder:
      return {DatasetKind::ImageFolder, "Image folder", {}, 0};
    case DatasetName::Text:
      return {DatasetKind::Text, "Texts", {}, 0};
    case DatasetName::Synthetic:
      return {DatasetKind::Synthetic, "Synthetic", {}, 0};
  }
  return {DatasetKind::Synthetic, wordString(dataset), {}, 0};
}

std::string dataFolder(const DataConfig& config) {
  return config.path.empty() ? defaultDataPath(config.dataset) : config.path;
}

IdxFiles findIdxFiles(const DataConfig& config) {
  const std::string folder = dataFolder(config);
  const std::string display = datasetInfo(config.dataset).display_name;
  std::vector<std::string> missing;
  const auto find = [&](const std::string& base) -> std::string {
    const fs::path plain = fs::path(folder) / base;
    const fs::path gzipped = fs::path(folder) / (base + ".gz");
    if (isFile(gzipped)) return gzipped.string();
    if (isFile(plain)) return plain.string();
    missing.push_back(base + "(.gz)");
    return {};
  };
  IdxFiles files;
  files.train_images = find("train-images-idx3-ubyte");
  files.train_labels = find("train-labels-idx1-ubyte");
  files.test_images = find("t10k-images-idx3-ubyte");
  files.test_labels = find("t10k-labels-idx1-ubyte");
  if (!missing.empty()) {
    std::string list;
    for (const auto& name : missing) list += (list.empty() ? "" : ", ") + name;
    std::error_code ec;
    const std::string problem =
        fs::is_directory(folder, ec)
            ? display + " files not found in " + folder + ": " + list
            : display + " folder " + folder + " does not exist (looked for " + list + ")";
    throw DataError(problem, missingIdxHint(config, folder));
  }
  return files;
}

Cifar10Files findCifar10Files(const DataConfig& config) {
  const std::string folder = dataFolder(config);
  // The archive extracts to cifar-10-batches-bin/; accept data.path pointing at either level.
  fs::path base = folder;
  if (!isFile(base / "data_batch_1.bin") && isFile(base / "cifar-10-batches-bin" / "data_batch_1.bin")) {
    base /= "cifar-10-batches-bin";
  }
  Cifar10Files files;
  std::vector<std::string> missing;
  for (int i = 1; i <= 5; ++i) {
    const fs::path file = base / ("data_batch_" + std::to_string(i) + ".bin");
    if (!isFile(file)) missing.push_back(file.filename().string());
    files.train.push_back(file.string());
  }
  files.test = (base / "test_batch.bin").string();
  if (!isFile(files.test)) missing.push_back("test_batch.bin");
  if (!missing.empty()) {
    std::string list;
    for (const auto& name : missing) list += (list.empty() ? "" : ", ") + name;
    throw DataError(
        "CIFAR-10 files not found in " + base.string() + ": " + list,
        std::string("download ") + kCifar10Url + " and extract it in " + folder +
            " (tar xzf cifar-10-binary.tar.gz), or set data.path to the folder that holds the batches");
  }
  return files;
}

}  // namespace wb
