// The CSV reader and the csv dataset on small files written in a temporary folder.

#include <gtest/gtest.h>

#include <string>

#include "data/dataset.h"
#include "data/dataset_readers.h"
#include "data_test_support.h"

namespace wb {
namespace {

using test::expectDataError;
using test::TempDir;

std::string writeCsv(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string file = dir.file(name);
  test::writeBytes(file, text);
  return file;
}

TEST(CsvReader, ReadsFeaturesAndLabelByName) {
  TempDir dir;
  // A byte order mark, CRLF line ends, a quoted header, the label in the middle, a blank line, "+" and
  // exponents.
  const std::string file = writeCsv(dir, "good.csv",
                                    "\xEF\xBB\xBF\"width, cm\",species,height\r\n"
                                    "1.5,0,-2\r\n"
                                    "\r\n"
                                    " 2.5 , 2 ,+3e1\r\n"
                                    "\"4\",1,0.25\r\n");
  const CsvData data = readCsv(file, "species");
  EXPECT_EQ(data.feature_names, (std::vector<std::string>{"width, cm", "height"}));
  EXPECT_EQ(data.num_classes, 3);
  const torch::Tensor expected = torch::tensor({1.5f, -2.f, 2.5f, 30.f, 4.f, 0.25f}).view({3, 2});
  EXPECT_TRUE(torch::equal(data.split.inputs, expected)) << data.split.inputs;
  EXPECT_TRUE(torch::equal(data.split.labels, torch::tensor({0, 2, 1}, torch::kLong)));
  EXPECT_EQ(readCsvHeader(file), (std::vector<std::string>{"width, cm", "species", "height"}));
}

TEST(CsvReader, NonNumericCellNamesLineAndColumn) {
  TempDir dir;
  const std::string file = writeCsv(dir, "text.csv", "a,b,label\n1,2,0\n3,abc,1\n");
  expectDataError([&] { readCsv(file, "label"); }, {file, "line 3", "column 'b'", "'abc' is not a number"});
  const std::string empty_cell = writeCsv(dir, "empty-cell.csv", "a,b,label\n1,,0\n");
  expectDataError([&] { readCsv(empty_cell, "label"); }, {empty_cell, "line 2", "column 'b'", "empty cell"});
  const std::string infinite = writeCsv(dir, "inf.csv", "a,label\n1e300,0\n");
  expectDataError([&] { readCsv(infinite, "label"); }, {infinite, "line 2", "not a finite"});
}

TEST(CsvReader, RaggedRowNamesLine) {
  TempDir dir;
  const std::string file = writeCsv(dir, "ragged.csv", "a,b,label\n1,2,0\n\n3,1\n");
  expectDataError([&] { readCsv(file, "label"); }, {file, "line 4 has 2 cells but the header has 3 columns"});
}

TEST(CsvReader, MissingLabelColumnListsColumns) {
  TempDir dir;
  const std::string file = writeCsv(dir, "nolabel.csv", "a,b,class\n1,2,0\n");
  const std::string hint =
      expectDataError([&] { readCsv(file, "label"); }, {file, "no column 'label'", "a, b, class"});
  EXPECT_TRUE(test::contains(hint, "data.label_column"));
}

TEST(CsvReader, LabelsMustBeClassIndices) {
  TempDir dir;
  const std::string negative = writeCsv(dir, "negative.csv", "a,label\n1,0\n2,-1\n");
  expectDataError([&] { readCsv(negative, "label"); }, {negative, "line 3", "'-1' is not a class index"});
  const std::string fraction = writeCsv(dir, "fraction.csv", "a,label\n1,0.5\n");
  expectDataError([&] { readCsv(fraction, "label"); }, {fraction, "line 2", "'0.5' is not a class index"});
}

TEST(CsvReader, EmptyFilesAndMissingFiles) {
  TempDir dir;
  const std::string empty = writeCsv(dir, "empty.csv", "");
  expectDataError([&] { readCsv(empty, "label"); }, {empty, "is empty"});
  expectDataError([&] { readCsvHeader(empty); }, {empty, "is empty"});
  const std::string header_only = writeCsv(dir, "header.csv", "a,label\n\n");
  expectDataError([&] { readCsv(header_only, "label"); }, {header_only, "no data rows"});
  const std::string only_label = writeCsv(dir, "only-label.csv", "label\n1\n");
  expectDataError([&] { readCsv(only_label, "label"); }, {only_label, "no feature columns"});
  expectDataError([&] { readCsv(dir.file("missing.csv"), "label"); }, {"missing.csv", "cannot open"});
}

// 50 rows: feature x = row, feature y = 2 * row, label = row % 3.
std::string numberedTable() {
  std::string text = "x,y,label\n";
  for (int row = 0; row < 50; ++row) {
    text += std::to_string(row) + "," + std::to_string(2 * row) + "," + std::to_string(row % 3) + "\n";
  }
  return text;
}

TEST(CsvDataset, HoldsOutASeededTestShare) {
  TempDir dir;
  DataConfig config;
  config.dataset = DatasetName::Csv;
  config.path = writeCsv(dir, "table.csv", numberedTable());
  config.test_fraction = 0.2;
  config.val_fraction = 0.1;

  const Dataset dataset = loadDataset(config, 3);
  EXPECT_EQ(dataset.description, "CSV table.csv: 36 train, 4 val, 10 test, 2 features, 3 classes");
  EXPECT_EQ(dataset.class_names, (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_EQ(dataset.sample_shape, (std::vector<int64_t>{2}));
  // Per feature: training mean 0 and std 1.
  EXPECT_TRUE(torch::allclose(dataset.train.x.mean(0), torch::zeros({2}), 0, 1e-5));
  EXPECT_TRUE(torch::allclose(dataset.train.x.std(0, /*unbiased=*/false), torch::ones({2}), 0, 1e-5));

  // Undo the normalization: every row comes back exactly once across the three splits, labels with it.
  const torch::Tensor all_x = torch::cat({dataset.train.x, dataset.val.x, dataset.test.x});
  const torch::Tensor all_y = torch::cat({dataset.train.y, dataset.val.y, dataset.test.y});
  const torch::Tensor rows =
      (all_x.select(1, 0) * dataset.normalization.std[0] + dataset.normalization.mean[0])
          .round()
          .to(torch::kLong);
  EXPECT_TRUE(torch::equal(std::get<0>(rows.sort()), torch::arange(50, torch::kLong)));
  EXPECT_TRUE(torch::equal(all_y, rows.remainder(3)));

  // The same seed splits the same way, another seed differently.
  EXPECT_TRUE(torch::equal(loadDataset(config, 3).test.x, dataset.test.x));
  EXPECT_FALSE(torch::equal(loadDataset(config, 4).test.x, dataset.test.x));

  const DataShape shape = probeDataShape(config);
  EXPECT_EQ(shape.sample_shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(shape.num_classes, 3);
  EXPECT_EQ(shape.train_samples, 40) << "all rows but the test share";
}

TEST(CsvDataset, SeparateTestFile) {
  TempDir dir;
  DataConfig config;
  config.dataset = DatasetName::Csv;
  config.path = writeCsv(dir, "train.csv", numberedTable());
  config.test_path = writeCsv(dir, "test.csv", "x,y,label\n100,0,3\n");
  config.val_fraction = 0;
  const Dataset dataset = loadDataset(config, 0);
  EXPECT_EQ(dataset.description, "CSV train.csv: 50 train, 0 val, 1 test, 2 features, 4 classes");
  EXPECT_EQ(dataset.val.x.sizes(), torch::IntArrayRef({0, 2}));
  // The test file is normalized with the training statistics.
  EXPECT_NEAR(dataset.test.x[0][0].item<double>(),
              (100.0 - dataset.normalization.mean[0]) / dataset.normalization.std[0], 1e-4);

  config.test_path = writeCsv(dir, "other.csv", "x,z,label\n1,2,0\n");
  expectDataError([&] { loadDataset(config, 0); }, {config.test_path, "feature columns differ"});
}

TEST(CsvDataset, ConstantFeatureGetsUnitStd) {
  TempDir dir;
  DataConfig config;
  config.dataset = DatasetName::Csv;
  config.path = writeCsv(dir, "constant.csv", "c,v,label\n5,1,0\n5,2,1\n5,3,0\n5,4,1\n");
  config.val_fraction = 0;
  config.test_fraction = 0.25;
  const Dataset dataset = loadDataset(config, 0);
  EXPECT_EQ(dataset.normalization.std[0], 1.0);
  EXPECT_TRUE(torch::equal(dataset.train.x.select(1, 0), torch::zeros({3})));
}

TEST(CsvDataset, EmptyPathIsAUserError) {
  DataConfig config;
  config.dataset = DatasetName::Csv;
  EXPECT_THROW(loadDataset(config, 0), UserError);
}

}  // namespace
}  // namespace wb
