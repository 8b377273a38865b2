#include "images/image_folder_index.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <system_error>

#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

const char* const kImageExtensions[] = {".jpg", ".jpeg", ".png",  ".ppm", ".bmp",
                                        ".pgm", ".tif",  ".tiff", ".webp"};

bool isDirectory(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);  // follows links, as os.scandir's is_dir() and os.walk(followlinks=True)
}

// Every folder under `top` (itself included) with the names of the files in it, as os.walk(top,
// followlinks=True) yields them; a folder already walked (a link back up) is not walked again: os.walk would
// loop, or list it twice.
void walk(const std::string& top, std::set<fs::path>& seen,
          std::vector<std::pair<std::string, std::vector<std::string>>>& out) {
  std::error_code ec;
  const fs::path canonical = fs::canonical(top, ec);
  if (ec || !seen.insert(canonical).second) return;
  std::vector<std::string> files, folders;
  for (fs::directory_iterator it(top, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    (isDirectory(it->path()) ? folders : files).push_back(name);
  }
  out.push_back({top, std::move(files)});
  for (const std::string& folder : folders) walk(top + "/" + folder, seen, out);
}

}  // namespace

bool hasImageExtension(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* ext : kImageExtensions) {
    const std::string e = ext;
    if (lower.size() >= e.size() && lower.compare(lower.size() - e.size(), e.size(), e) == 0) return true;
  }
  return false;
}

ImageFolderIndex indexImageFolder(const std::string& root) {
  ImageFolderIndex index;
  index.root = root;
  while (index.root.size() > 1 && index.root.back() == '/') index.root.pop_back();  // as os.path.join joins
  const std::string& folder_root = index.root;
  if (!isDirectory(folder_root)) {
    throw DataError(
        "Image folder " + root + " does not exist or is not a folder",
        "Set data.path to a folder with one subfolder of images per class (root/cat/001.jpg, ...).");
  }
  std::error_code ec;
  for (fs::directory_iterator it(folder_root, ec), end; !ec && it != end; it.increment(ec)) {
    if (isDirectory(it->path())) index.classes.push_back(it->path().filename().string());
  }
  std::sort(index.classes.begin(), index.classes.end());
  if (index.classes.empty()) {
    throw DataError("Image folder " + root + " has no class subfolders",
                    "Put each class's images in a subfolder named after the class (root/cat/001.jpg, "
                    "root/dog/001.jpg), as torchvision's ImageFolder expects.");
  }
  std::vector<std::string> empty;
  for (size_t label = 0; label < index.classes.size(); ++label) {
    std::set<fs::path> seen;
    std::vector<std::pair<std::string, std::vector<std::string>>> folders;
    walk(folder_root + "/" + index.classes[label], seen, folders);
    std::sort(folders.begin(), folders.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    int64_t count = 0;
    for (auto& [folder, files] : folders) {
      std::sort(files.begin(), files.end());
      for (const std::string& file : files) {
        if (!hasImageExtension(file)) continue;
        index.files.push_back(folder + "/" + file);
        index.labels.push_back(static_cast<int64_t>(label));
        ++count;
      }
    }
    index.class_counts.push_back(count);
    if (count == 0) empty.push_back(index.classes[label]);
  }
  if (!empty.empty()) {
    std::string names;
    for (const std::string& name : empty) names += (names.empty() ? "" : ", ") + name;
    throw DataError("Image folder " + root + ": no image in the class folder(s) " + names,
                    "Add images (.jpg, .jpeg or .png) to them, or remove the empty folders.");
  }
  return index;
}

}  // namespace wb
