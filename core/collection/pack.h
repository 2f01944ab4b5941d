// The .pack file: one or more collections in a versioned binary container.
//
//   header   "VESPERPK" u32 version, u32 section count, u64 total bytes
//   table    per section: u32 kind, u32 collection, u64 offset, u64 size, u32 crc32
//   u32      crc32 of header and table
//   sections meta | chunks | vectors | hnsw | bm25 | pieces | rows, per collection, each checksummed
//
// Loading checks magic, version, sizes and every checksum before parsing,
// then parses defensively; a damaged pack is an Error, never a crash.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/collection/collection.h"
#include "core/util/bytes.h"

namespace vesper {

// 2: HNSW labels stored as u64 on every platform; 3: a chunk's flag byte may
// also mark it meta (Chunk::meta), so version-2 readers refuse it by version;
// 4: the HNSW graph leaves out the vectors the vectors section holds; a
// bm25 section stores the lexical index and a pieces section what piece
// matching tokenised, so loading rebuilds none of them. A version-4 chunk
// may also carry its page's fields (flag 4, Chunk::fields) after its
// language: only packs built from a site that marks them do, and a reader
// that predates them refuses such a pack as a bad chunk flag, never misreads it.
// 5: a rows section may carry the static model's rows the passages use
// (Collection::SaveRows), so a page loads the pack without the whole table.
// 6: the graph's level-0 link lists are stored by their count, not as all 2M
// slots (they are ~40% full: the hnsw section halves).
constexpr uint32_t kPackVersion = 6;

// version: kPackVersion, 5 (full link lists), 4 (no rows section), or 3 (the graph with its vectors, no bm25 section)
// for a reader that predates version 4, and the tests of loading old packs.
// lexical_index: with the bm25 section (from version 4); without it, loading
// builds BM25 from the text (a split index's page fragments: the collection
// they are added to indexes them anyway).
Bytes SavePack(const std::vector<const Collection*>& collections, uint32_t version = kPackVersion, bool lexical_index = true);
// The same bytes passed to `sink` in pieces (ByteWriter::kSinkPiece or one
// large block), so that a large pack is written out without being held
// whole: each section is written twice (once for its size and checksum).
void SavePackTo(const std::vector<const Collection*>& collections, const ByteWriter::Sink& sink,
                uint32_t version = kPackVersion, bool lexical_index = true);

// With `expected`, a collection embedded by another model is refused
// (kModelMismatch) instead of being searched with incomparable vectors.
// With `owner` (memory holding data, kept alive by what is loaded from it),
// a collection whose int8 vectors are at least half the pack reads them in
// place rather than copying them (VectorStore::Load).
std::vector<Collection> LoadPack(const uint8_t* data, size_t size, const ModelInfo* expected = nullptr,
                                 std::shared_ptr<const void> owner = nullptr);

struct PackSectionInfo {
  std::string kind;
  uint32_t collection;
  uint64_t offset, size;
};

struct PackInfo {
  uint32_t version;
  uint64_t bytes;
  std::vector<PackSectionInfo> sections;
  struct CollectionInfo {
    std::string name;
    ModelInfo model;
    size_t chunks;
    bool hnsw;
  };
  std::vector<CollectionInfo> collections;
};

// Validates the whole pack (checksums and every section's contents) and
// describes it, without building the indexes a search would need.
PackInfo InspectPack(const uint8_t* data, size_t size);

}  // namespace vesper
