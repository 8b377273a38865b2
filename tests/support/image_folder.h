#pragma once
// An image folder for the tests, in torchvision's ImageFolder layout: 10 classes of Fashion-MNIST garments as
// colour JPEG and PNG files of different sizes, written by tests/backend/data/make_image_folder.py with
// Debian's python3-pil (scripts/setup.sh installs it).

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace wb::test {

// Writes `per_class` files for each of `classes` classes under `folder`; throws when the script fails.
inline void makeGarmentFolder(const std::string& folder, int per_class, int classes = 10, int size = 40) {
  const std::string command =
      std::string(WB_TORCHVISION_PYTHON) + " " + WB_SOURCE_DIR + "/tests/backend/data/make_image_folder.py " +
      folder + " " + std::to_string(per_class) + " " + std::to_string(classes) + " " + std::to_string(size);
  if (std::system(command.c_str()) != 0) {
    throw std::runtime_error(command + " failed (it needs python3-pil and python3-numpy: scripts/setup.sh)");
  }
}

}  // namespace wb::test
