// The pass runs on `workers` threads (at least one), each taking the next file from a shared counter and
// writing its own slot of the results, so the order of the findings is the files' order whatever the thread
// count. Pixel sums are integers (exact in 64 bits for any folder that fits on a disk), so the statistics do
// not depend on the thread count either.

#include "data/image_scan.h"

#include <sys/stat.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "data/user_cache.h"
#include "util/atomic_file.h"
#include "workbench/errors.h"

namespace wb {
namespace {

constexpr size_t kMaxCachedEntries = 16;  // one per transform and split a user tried; the oldest go first

struct FileScan {
  bool ok = false;
  std::string reason;
  int64_t height = 0, width = 0;
  uint64_t sum[3] = {0, 0, 0};
  uint64_t squares[3] = {0, 0, 0};
  uint64_t pixels = 0;
};

FileScan scanFile(const std::string& file, const ImageTransform& transform) {
  FileScan scan;
  DecodedImage image;
  try {
    image = evaluationTransform(readImageFor(file, transform), transform);
  } catch (const DataError& error) {
    scan.reason = error.what();
    return scan;
  }
  scan.ok = true;
  scan.height = image.height;
  scan.width = image.width;
  const int channels = image.channels;
  const uint8_t* p = image.pixels.data();
  const size_t n = image.pixels.size();
  for (size_t i = 0; i < n; i += static_cast<size_t>(channels)) {
    for (int c = 0; c < channels; ++c) {
      const uint64_t v = p[i + static_cast<size_t>(c)];
      scan.sum[c] += v;
      scan.squares[c] += v * v;
    }
  }
  scan.pixels = n / static_cast<size_t>(channels);
  return scan;
}

// The files (path, size, modification time), the transform and the split: any change is a new entry.
std::string cacheKey(const std::vector<std::string>& files, const std::vector<char>& training,
                     const ImageTransform& t, const std::string& split_key) {
  uint64_t hash = 1469598103934665603ULL;
  hash = fnv1a(hash, "v1 " + std::to_string(t.resize) + " " + std::to_string(t.crop) + " " +
                         std::to_string(t.channels) + (t.jpeg_draft ? " draft " : " ") + split_key);
  for (size_t i = 0; i < files.size(); ++i) {
    struct stat info {};
    const bool found = ::stat(files[i].c_str(), &info) == 0;
    hash = fnv1a(hash, files[i] + (training[i] ? " t " : " e ") +
                           (found ? std::to_string(info.st_size) + " " + std::to_string(info.st_mtim.tv_sec) +
                                        "." + std::to_string(info.st_mtim.tv_nsec)
                                  : std::string("missing")));
  }
  std::ostringstream text;
  text << std::hex << std::setw(16) << std::setfill('0') << hash;
  return text.str();
}

// The user's cache folder, one file per image folder (named by a hash of its absolute path) holding a map
// key -> entry. Never the image folder itself: a user's data folder is read, never written (it may be
// read-only, shared, or under version control). Empty when there is no cache folder: the pass then runs
// every time.
std::vector<std::string> cacheFiles(const std::string& folder) {
  const std::string user = userCacheFolder();
  if (user.empty()) return {};
  std::ostringstream name;
  name << std::hex << std::setw(16) << std::setfill('0')
       << fnv1a(1469598103934665603ULL, std::filesystem::absolute(folder).lexically_normal().string());
  return {user + "/image-statistics-" + name.str() + ".json"};
}

nlohmann::json readJsonOrEmpty(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nlohmann::json::object();
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return doc.is_object() ? doc : nlohmann::json::object();
}

std::optional<ImageScan> fromEntry(const nlohmann::json& entry) {
  try {
    ImageScan scan;
    scan.normalization.mean = entry.at("mean").get<std::vector<double>>();
    scan.normalization.std = entry.at("std").get<std::vector<double>>();
    scan.height = entry.at("height").get<int64_t>();
    scan.width = entry.at("width").get<int64_t>();
    for (const auto& bad : entry.at("bad_files")) {
      scan.bad.push_back({bad.at("file").get<std::string>(), bad.at("reason").get<std::string>()});
    }
    scan.from_cache = true;
    return scan;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // an entry from another version or edited by hand: measured again
  }
}

nlohmann::json toEntry(const ImageScan& scan, int64_t serial) {
  nlohmann::json bad = nlohmann::json::array();
  for (const auto& b : scan.bad) bad.push_back({{"file", b.file}, {"reason", b.reason}});
  return {{"mean", scan.normalization.mean},
          {"std", scan.normalization.std},
          {"height", scan.height},
          {"width", scan.width},
          {"bad_files", bad},
          {"serial", serial}};
}

// Adds the entry to the first place that can be written; returns it, or "" when none can.
std::string remember(const std::string& folder, const std::string& key, const ImageScan& scan) {
  for (const std::string& place : cacheFiles(folder)) {
    nlohmann::json doc = readJsonOrEmpty(place);
    nlohmann::json& entries = doc["entries"];
    if (!entries.is_object()) entries = nlohmann::json::object();
    int64_t serial = 0;
    for (const auto& item : entries.items())
      serial = std::max(serial, item.value().value("serial", int64_t{0}));
    entries[key] = toEntry(scan, serial + 1);
    while (entries.size() > kMaxCachedEntries) {
      auto oldest = entries.begin();
      for (auto it = entries.begin(); it != entries.end(); ++it) {
        if (it.value().value("serial", int64_t{0}) < oldest.value().value("serial", int64_t{0})) oldest = it;
      }
      entries.erase(oldest);
    }
    try {
      std::filesystem::create_directories(std::filesystem::path(place).parent_path());
      writeFileAtomically(place, doc.dump(1) + "\n");
      return place;
    } catch (const std::exception&) {
      continue;  // a cache folder that cannot be written: the next place, or none
    }
  }
  return {};
}

ImageScan measure(const std::vector<std::string>& files, const std::vector<char>& training,
                  const ImageTransform& transform, int workers) {
  std::vector<FileScan> scans(files.size());
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    try {
      for (size_t i = next++; i < files.size(); i = next++) scans[i] = scanFile(files[i], transform);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next = files.size();
    }
  };
  std::vector<std::thread> threads;
  for (int i = 1; i < std::max(1, workers); ++i) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);

  ImageScan result;
  const int channels = transform.channels;
  uint64_t sum[3] = {0, 0, 0}, squares[3] = {0, 0, 0}, pixels = 0;
  const FileScan* first = nullptr;
  size_t first_index = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const FileScan& s = scans[i];
    if (!s.ok) {
      result.bad.push_back({files[i], s.reason});
      continue;
    }
    if (!first) {
      first = &s;
      first_index = i;
    } else if (s.height != first->height || s.width != first->width) {
      throw DataError(
          files[i] + " is " + std::to_string(s.width) + "x" + std::to_string(s.height) +
              " pixels after the transforms, but " + files[first_index] + " is " +
              std::to_string(first->width) + "x" + std::to_string(first->height) + ": a batch needs one size",
          "set data.images.resize and data.images.crop (such as 256 and 224) so that every image comes "
          "out the same size");
    }
    if (!training[i]) continue;
    for (int c = 0; c < channels; ++c) {
      sum[c] += s.sum[c];
      squares[c] += s.squares[c];
    }
    pixels += s.pixels;
  }
  if (first) {
    result.height = first->height;
    result.width = first->width;
  }
  for (int c = 0; c < channels; ++c) {
    const long double n = pixels > 0 ? static_cast<long double>(pixels) : 1.0L;
    const long double mean = static_cast<long double>(sum[c]) / n;
    const long double variance = std::max(0.0L, static_cast<long double>(squares[c]) / n - mean * mean);
    const double deviation = static_cast<double>(std::sqrt(variance) / 255.0L);
    result.normalization.mean.push_back(static_cast<double>(mean / 255.0L));
    // A constant channel maps to 0 instead of dividing by zero (as computeNormalization does).
    result.normalization.std.push_back(deviation > 0 ? deviation : 1.0);
  }
  return result;
}

}  // namespace

ImageScan scanImageFiles(const std::string& folder, const std::vector<std::string>& files,
                         const std::vector<char>& training, const ImageTransform& transform, int workers,
                         const std::string& split_key) {
  const std::string key = cacheKey(files, training, transform, split_key);
  for (const std::string& place : cacheFiles(folder)) {
    const nlohmann::json doc = readJsonOrEmpty(place);
    if (doc.contains("entries") && doc["entries"].contains(key)) {
      if (std::optional<ImageScan> cached = fromEntry(doc["entries"][key])) {
        cached->cache_file = place;
        return *cached;
      }
    }
  }
  ImageScan scan = measure(files, training, transform, workers);
  scan.cache_file = remember(folder, key, scan);
  return scan;
}

}  // namespace wb
