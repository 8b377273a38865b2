#pragma once
// The samples of an image folder as torchvision's ImageFolder finds them, so that a folder gives the same
// classes, labels and sample order here as in the user's PyTorch code: one class per subfolder of the root,
// sorted by name (code-point order; hidden folders included; links followed); each class's files found by
// walking its subfolder recursively (folders in sorted path order, files sorted by name in each), kept when
// the name ends with an image extension (any case: torchvision's list, .jpg .jpeg .png .ppm .bmp .pgm .tif
// .tiff .webp); files in the root itself are not samples. Only reads directory entries: no file is opened. No
// Torch.

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

struct ImageFolderIndex {
  std::string root;
  std::vector<std::string> classes;  // class i is the i-th folder
  std::vector<std::string> files;    // every sample's path (root/class/...), in torchvision's order
  std::vector<int64_t> labels;       // files[i]'s class
  std::vector<int64_t> class_counts;
};

// Throws wb::DataError naming the folder: it does not exist, it has no class subfolders, or a class has no
// image (torchvision refuses those too).
ImageFolderIndex indexImageFolder(const std::string& root);

// Whether torchvision's ImageFolder counts `name` as an image (by its extension, in any case).
bool hasImageExtension(const std::string& name);

}  // namespace wb
