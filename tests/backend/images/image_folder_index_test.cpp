// An image folder gives the classes, labels and sample order torchvision's ImageFolder gives (Debian's
// python3-torchvision lists the same folder): sorted class folders (upper case first, hidden ones too),
// nested folders walked in sorted path order, extensions in any case, other files and files in the root left
// out, linked folders followed. An empty class, no class folder, or no folder at all is refused, naming it.

#include "images/image_folder_index.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "support/temporary_folder.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

class ImageFolderIndexing : public ::testing::Test {
 protected:
  void SetUp() override { root = test::folderForThisTest("test-folder") + "/root"; }
  void touch(const std::string& relative) {
    fs::create_directories((fs::path(root) / relative).parent_path());
    std::ofstream(fs::path(root) / relative) << "x";
  }
  // torchvision's answer, in the same form as the index.
  std::string torchvisionListing() {
    const std::string command = std::string(WB_TORCHVISION_PYTHON) + " " + WB_SOURCE_DIR +
                                "/tests/backend/images/list_image_folder.py " + root + " 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
    std::string out;
    char buffer[4096];
    while (pipe && fgets(buffer, sizeof buffer, pipe.get())) out += buffer;
    return out;
  }
  static std::string listing(const ImageFolderIndex& index) {
    std::ostringstream out;
    for (size_t i = 0; i < index.classes.size(); ++i) out << (i ? "\t" : "") << index.classes[i];
    out << "\n";
    for (size_t i = 0; i < index.files.size(); ++i) out << index.labels[i] << " " << index.files[i] << "\n";
    return out.str();
  }
  std::string root;
};

TEST_F(ImageFolderIndexing, FindsWhatTorchvisionsImageFolderFinds) {
  for (const char* file : {"cat/b.jpg", "cat/a.PNG", "cat/notes.txt", "cat/sub/z.jpeg", "cat/sub-2/y.png",
                           "cat/sub/deeper/x.JPG", "dog/1.png", "dog/10.png", "dog/2.png", "Zebra/z.webp",
                           ".hidden/h.png", "readme.png", "dog/.dot.png", "dog/image.png.bak"}) {
    touch(file);
  }
  fs::create_directories(fs::path(root) / "elsewhere");
  std::ofstream(fs::path(root) / "elsewhere" / "e.png") << "x";
  fs::create_directory_symlink(fs::path(root) / "elsewhere", fs::path(root) / "dog" / "linked");
  const ImageFolderIndex index = indexImageFolder(root + "/");
  const std::string ours = listing(index);
  EXPECT_EQ(ours, torchvisionListing());
  // And what that is, so that the comparison cannot pass by both being empty.
  EXPECT_EQ(index.classes, (std::vector<std::string>{".hidden", "Zebra", "cat", "dog", "elsewhere"}));
  EXPECT_EQ(index.class_counts, (std::vector<int64_t>{1, 1, 5, 5, 1}));
  EXPECT_EQ(index.files.at(2), root + "/cat/a.PNG");
  EXPECT_EQ(index.files.at(4), root + "/cat/sub/z.jpeg");
  EXPECT_EQ(index.files.at(5), root + "/cat/sub-2/y.png");  // "sub-2" before "sub/deeper": '-' < '/'
  EXPECT_EQ(index.files.at(6), root + "/cat/sub/deeper/x.JPG");
}

TEST_F(ImageFolderIndexing, RefusesFoldersItCannotUseNamingThem) {
  auto message = [](const std::string& path) {
    try {
      indexImageFolder(path);
    } catch (const DataError& e) {
      EXPECT_FALSE(e.hint().empty());
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(message(root).find("does not exist"), std::string::npos);
  touch("loose.png");
  EXPECT_NE(message(root).find("has no class subfolders"), std::string::npos);
  touch("cat/1.png");
  touch("dog/notes.txt");
  const std::string empty = message(root);
  EXPECT_NE(empty.find("no image in the class folder(s) dog"), std::string::npos) << empty;
  EXPECT_NE(empty.find(root), std::string::npos) << empty;
}

}  // namespace
}  // namespace wb
