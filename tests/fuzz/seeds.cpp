// Writes small, valid seed inputs for the fuzz targets whose real files are
// large or rarely hold every section (a pack only gets an HNSW graph past
// 4,096 chunks; the test model table is 256 kB): libFuzzer mutates small
// inputs far faster and reaches the parsers' deep branches from them.
//
//   fuzz_seeds DIR     writes DIR/pack/*.pack, DIR/static_model/*.vtab and DIR/row_set/*.vrow
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/collection/pack.h"
#include "core/embed/static_model.h"
#include "tests/fuzz/targets.h"
#include "tests/native/fake_embedder.h"

using namespace vesper;

namespace {

constexpr size_t kSeedDims = 8;  // small rows, still SIMD-width multiples
constexpr uint32_t kSeedM = 4;   // a few links per node, upper levels likely

const char* const kSeedDocument =
    "# Gradient descent\n\nGradient descent walks downhill on the loss. Backpropagation computes it.\n\n"
    "## Redes neurais\n\nUma rede neural aprende com exemplos. Descida do gradiente.\n\n"
    "## 神经网络\n\n神经网络从零开始。反向传播是核心。\n\n"
    "## Examples of questions\n\n- What is micrograd?\n- Why cameras?\n";

bool failed = false;

void Write(const std::string& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) {
    std::fprintf(stderr, "fuzz_seeds: cannot write %s\n", path.c_str());
    failed = true;
  }
}

Collection VectorCollection(const char* name, VectorFormat format, IndexKind index, bool remove_one) {
  CollectionOptions o;
  o.index = index;
  o.vectors = format;
  o.hnsw.M = kSeedM;
  o.hnsw.ef_construction = 16;
  o.hnsw.ef_search = 8;
  Collection c(name, test::FakeModel(kSeedDims), o);
  std::vector<Chunk> chunks = ChunkDocument("seed.md", kSeedDocument);
  // Repeated with other ids, so the graph has enough nodes for an upper level.
  const size_t base = chunks.size();
  for (size_t copy = 1; copy < 6; ++copy) {
    for (size_t i = 0; i < base; ++i) {
      Chunk extra = chunks[i];
      extra.id += "-" + std::to_string(copy);
      chunks.push_back(extra);
    }
  }
  chunks.back().meta = true;
  const std::vector<float> v = test::FakeEmbedChunks(chunks, kSeedDims);
  c.Add(chunks, v.data(), chunks.size());
  if (remove_one) c.Remove(chunks[1].id);
  return c;
}

void WritePacks(const std::string& dir) {
  const std::pair<const char*, VectorFormat> formats[] = {
      {"float32", VectorFormat::kFloat32}, {"int8", VectorFormat::kInt8}, {"binary", VectorFormat::kBinary}};
  for (auto [name, format] : formats) {
    Collection hnsw = VectorCollection("graph", format, IndexKind::kHnsw, /*remove_one=*/true);
    const Bytes pack = SavePack({&hnsw});
    Write(dir + "/hnsw-" + name + ".pack", pack.data(), pack.size());
  }
  Collection exact = VectorCollection("exact", VectorFormat::kFloat32, IndexKind::kExact, false);
  Collection lexical("lexical", ModelInfo{});
  lexical.Add(ChunkDocument("seed.md", kSeedDocument));
  const Bytes both = SavePack({&exact, &lexical});
  Write(dir + "/exact-and-lexical.pack", both.data(), both.size());
}

// "VSTM", version 1, vocab, dims, dtype, rows (static_model.h).
void WriteTables(const std::string& dir) {
  for (uint32_t dtype : {0u, 1u}) {
    const uint32_t vocab = 6, dims = 4;
    std::vector<uint8_t> b(4);
    std::memcpy(b.data(), "VSTM", 4);
    auto u32 = [&](uint32_t x) { b.insert(b.end(), reinterpret_cast<uint8_t*>(&x), reinterpret_cast<uint8_t*>(&x) + 4); };
    u32(1), u32(vocab), u32(dims), u32(dtype);
    for (uint32_t row = 0; row < vocab; ++row) {
      if (dtype == 1) {
        const float scale = 0.01f * static_cast<float>(row + 1);
        b.insert(b.end(), reinterpret_cast<const uint8_t*>(&scale), reinterpret_cast<const uint8_t*>(&scale) + 4);
        for (uint32_t d = 0; d < dims; ++d) b.push_back(static_cast<uint8_t>(row * 7 + d * 13));
      } else {
        for (uint32_t d = 0; d < dims; ++d) {
          const float x = static_cast<float>(row) - static_cast<float>(d) * 0.5f;
          b.insert(b.end(), reinterpret_cast<const uint8_t*>(&x), reinterpret_cast<const uint8_t*>(&x) + 4);
        }
      }
    }
    Write(dir + "/table-dtype" + std::to_string(dtype) + ".vtab", b.data(), b.size());
  }
}

// Row sets of those tables: all rows, and a block of a few.
void WriteRowSets(const std::string& tables, const std::string& dir) {
  for (uint32_t dtype : {0u, 1u}) {
    std::ifstream in(tables + "/table-dtype" + std::to_string(dtype) + ".vtab", std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto model = StaticModel::FromBytes(bytes);
    const std::vector<uint8_t> all = model->RowSet({0, 1, 2, 3, 4, 5}), some = model->RowSet({1, 4});
    Write(dir + "/all-dtype" + std::to_string(dtype) + ".vrow", all.data(), all.size());
    Write(dir + "/some-dtype" + std::to_string(dtype) + ".vrow", some.data(), some.size());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds DIR (writes DIR/pack/, DIR/static_model/ and DIR/row_set/)\n");
    return 2;
  }
  const std::string dir = argv[1];
  std::filesystem::create_directories(dir + "/pack");
  std::filesystem::create_directories(dir + "/static_model");
  WritePacks(dir + "/pack");
  WriteTables(dir + "/static_model");
  std::filesystem::create_directories(dir + "/row_set");
  WriteRowSets(dir + "/static_model", dir + "/row_set");
  std::filesystem::create_directories(dir + "/split");
  const auto& split = fuzz::ReferenceSplitFiles();
  for (size_t i = 0; i < split.size(); ++i) Write(dir + "/split/part-" + std::to_string(i) + ".bin", split[i].data(), split[i].size());
  return failed ? 1 : 0;
}
