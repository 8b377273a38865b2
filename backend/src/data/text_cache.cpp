#include "data/text_cache.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "data/user_cache.h"
#include "text/tokenizer_files.h"
#include "util/atomic_file.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[] = "torch-workbench tokenized texts v1\n";

// The bytes of `file`, folded into `hash` a megabyte at a time.
uint64_t hashContents(uint64_t hash, const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(file.string() + ": cannot be read");
  std::string piece(1 << 20, '\0');
  while (in) {
    in.read(piece.data(), static_cast<std::streamsize>(piece.size()));
    hash = fnv1a(hash, std::string_view(piece.data(), static_cast<size_t>(in.gcount())));
  }
  return hash;
}

uint64_t hashData(uint64_t hash, const fs::path& data) {
  std::error_code error;
  if (!fs::is_directory(data, error)) return hashContents(fnv1a(hash, "file"), data);
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(data, error)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files)
    hash = hashContents(fnv1a(hash, fs::relative(file, data).string()), file);
  return hash;
}

std::string cacheKey(const fs::path& data, const text::TextColumns& columns, const fs::path& tokenizer,
                     const TextTokenizing& options) {
  uint64_t hash = fnv1a(kFnv1aStart, kMagic);
  hash = fnv1a(hash, columns.text + "\t" + columns.text_pair + "\t" + columns.label + "\t" +
                         std::to_string(options.max_length) + "\t" + wordString(options.bad_records));
  hash = hashData(hash, data);
  for (const fs::path& file : text::tokenizerSourceFiles(tokenizer)) {
    hash = hashContents(fnv1a(hash, file.filename().string()), file);
  }
  return hex16(hash);
}

class Writer {
 public:
  template <typename T>
  void value(T v) {
    m_out.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  template <typename T>
  void values(const std::vector<T>& v) {
    value<uint64_t>(v.size());
    m_out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void text(const std::string& s) {
    value<uint64_t>(s.size());
    m_out += s;
  }
  void texts(const std::vector<std::string>& v) {
    value<uint64_t>(v.size());
    for (const auto& s : v) text(s);
  }
  std::string m_out;
};

class Reader {
 public:
  explicit Reader(const std::string& bytes) : m_bytes(bytes) {}
  template <typename T>
  bool value(T& v) {
    return take(&v, sizeof v);
  }
  template <typename T>
  bool values(std::vector<T>& v) {
    uint64_t n = 0;
    if (!value(n) || n > (m_bytes.size() - m_at) / sizeof(T)) return false;
    v.resize(n);
    return take(v.data(), n * sizeof(T));
  }
  bool text(std::string& s) {
    uint64_t n = 0;
    if (!value(n) || n > m_bytes.size() - m_at) return false;
    s.assign(m_bytes, m_at, n);
    m_at += n;
    return true;
  }
  bool texts(std::vector<std::string>& v) {
    uint64_t n = 0;
    if (!value(n) || n > m_bytes.size() - m_at) return false;
    v.resize(n);
    for (auto& s : v)
      if (!text(s)) return false;
    return true;
  }
  bool atEnd() const { return m_at == m_bytes.size(); }

 private:
  bool take(void* out, size_t n) {
    if (n > m_bytes.size() - m_at) return false;
    std::memcpy(out, m_bytes.data() + m_at, n);
    m_at += n;
    return true;
  }
  const std::string& m_bytes;
  size_t m_at = 0;
};

std::string readFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// The arrays agree with one another (a file cut short or edited is not trusted).
bool consistent(const TokenizedTexts& t) {
  const size_t n = t.labels.size();
  if (t.offsets.size() != n + 1 || t.where.size() != n || t.type_ids.size() != t.ids.size()) return false;
  if (t.offsets.front() != 0 || t.offsets.back() != static_cast<int64_t>(t.ids.size())) return false;
  for (size_t i = 0; i < n; ++i) {
    if (t.offsets[i] > t.offsets[i + 1]) return false;
    if (t.labels[i] < 0 || t.labels[i] >= static_cast<int64_t>(t.label_names.size())) return false;
  }
  return true;
}

}  // namespace

std::string serializeTokenizedTexts(const TokenizedTexts& t) {
  Writer w;
  w.m_out = kMagic;
  w.values(t.ids);
  w.values(t.type_ids);
  w.values(t.offsets);
  w.values(t.labels);
  w.texts(t.label_names);
  w.texts(t.where);
  std::vector<std::string> bad;
  for (const auto& b : t.bad) {
    bad.push_back(b.where);
    bad.push_back(b.reason);
  }
  w.texts(bad);
  w.value(t.truncated_records);
  w.value(t.truncated_tokens);
  return std::move(w.m_out);
}

std::shared_ptr<TokenizedTexts> deserializeTokenizedTexts(const std::string& bytes) {
  const size_t magic = sizeof kMagic - 1;
  if (bytes.compare(0, magic, kMagic) != 0) return nullptr;
  const std::string body = bytes.substr(magic);
  Reader r(body);
  auto t = std::make_shared<TokenizedTexts>();
  std::vector<std::string> bad;
  if (!r.values(t->ids) || !r.values(t->type_ids) || !r.values(t->offsets) || !r.values(t->labels) ||
      !r.texts(t->label_names) || !r.texts(t->where) || !r.texts(bad) || !r.value(t->truncated_records) ||
      !r.value(t->truncated_tokens) || !r.atEnd() || bad.size() % 2 != 0 || !consistent(*t)) {
    return nullptr;
  }
  for (size_t i = 0; i < bad.size(); i += 2) t->bad.push_back({bad[i], bad[i + 1]});
  return t;
}

TokenizedTextFile tokenizeTextFile(const fs::path& data, const text::TextColumns& columns,
                                   const fs::path& tokenizer, const TextTokenizing& options) {
  TokenizedTextFile result;
  const std::string folder = userCacheFolder();
  if (!folder.empty()) {
    result.cache_file = folder + "/texts/" + cacheKey(data, columns, tokenizer, options) + ".tokens";
    if (auto cached = deserializeTokenizedTexts(readFileOrEmpty(result.cache_file))) {
      result.texts = std::move(cached);
      result.from_cache = true;
      return result;
    }
  }
  const std::unique_ptr<text::TextTokenizer> reader = text::loadTokenizer(tokenizer);
  const std::unique_ptr<text::TextRecordReader> records = text::openTextRecords(data, columns);
  TextTokenizing withSource = options;
  if (withSource.source.empty()) withSource.source = data.string();
  auto texts = std::make_shared<TokenizedTexts>(tokenizeTexts(*records, *reader, withSource));
  if (!result.cache_file.empty()) {
    std::error_code error;
    fs::create_directories(fs::path(result.cache_file).parent_path(), error);
    try {
      writeFileAtomically(result.cache_file, serializeTokenizedTexts(*texts));
    } catch (const std::exception&) {
      result.cache_file.clear();  // a cache that cannot be written only costs the next run the tokenizing
    }
  }
  result.texts = std::move(texts);
  return result;
}

}  // namespace wb
