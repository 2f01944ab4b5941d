#include "core/collection/pack.h"

#include <cstring>
#include <functional>

#include "core/util/checksum.h"
#include "core/util/error.h"

namespace vesper {
namespace {

constexpr char kMagic[8] = {'V', 'E', 'S', 'P', 'E', 'R', 'P', 'K'};
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8;
constexpr size_t kEntryBytes = 4 + 4 + 8 + 8 + 4;

enum SectionKind : uint32_t { kMeta = 1, kChunks = 2, kVectors = 3, kHnsw = 4, kBm25 = 5, kPieces = 6, kRows = 7 };

const char* KindName(uint32_t kind) {
  switch (kind) {
    case kMeta: return "meta";
    case kChunks: return "chunks";
    case kVectors: return "vectors";
    case kHnsw: return "hnsw";
    case kBm25: return "bm25";
    case kPieces: return "pieces";
    case kRows: return "rows";
  }
  return "unknown";
}

struct Section {
  uint32_t kind, collection;
  uint64_t offset, size;
  uint32_t crc;
};

[[noreturn]] void Corrupt(const std::string& why) { throw Error(ErrorCode::kCorruptData, "pack rejected: " + why); }

// Everything a pack's bytes are checked against before a field is parsed.
std::vector<Section> ReadTable(const uint8_t* data, size_t size, uint32_t& version) {
  if (size < 8 || std::memcmp(data, kMagic, 8) != 0) {
    throw Error(ErrorCode::kCorruptData, "not a vesper pack (bad magic bytes)");
  }
  if (size < kHeaderBytes) Corrupt("truncated header (" + std::to_string(size) + " bytes)");
  ByteReader r(data + 8, size - 8, "pack header");
  version = r.u32();
  if (version == 0 || version > kPackVersion) {
    throw Error(ErrorCode::kUnsupported, "pack format version " + std::to_string(version) +
                                             " is not supported by this build (it reads version " +
                                             std::to_string(kPackVersion) + ")");
  }
  uint32_t count = r.u32();
  uint64_t total = r.u64();
  if (total != size) {
    Corrupt(size < total ? "truncated: expected " + std::to_string(total) + " bytes, got " + std::to_string(size)
                         : "size mismatch: header says " + std::to_string(total) + " bytes, got " + std::to_string(size));
  }
  if (count > (size - kHeaderBytes) / kEntryBytes) Corrupt("section table larger than the pack");
  size_t table_end = kHeaderBytes + count * kEntryBytes;
  if (table_end + 4 > size) Corrupt("truncated section table");
  uint32_t stored;
  std::memcpy(&stored, data + table_end, 4);
  if (Crc32(data, table_end) != stored) Corrupt("header checksum mismatch");
  std::vector<Section> sections(count);
  uint64_t expect_offset = table_end + 4;
  for (auto& s : sections) {
    s.kind = r.u32();
    s.collection = r.u32();
    s.offset = r.u64();
    s.size = r.u64();
    s.crc = r.u32();
    if (s.offset != expect_offset || s.size > size - s.offset) Corrupt("section outside the pack");
    expect_offset = s.offset + s.size;
    if (Crc32(data + s.offset, s.size) != s.crc) {
      Corrupt(std::string("section '") + KindName(s.kind) + "' of collection " + std::to_string(s.collection) +
              " is corrupted (checksum mismatch)");
    }
  }
  if (expect_offset != size) Corrupt("trailing bytes after the last section");
  return sections;
}

}  // namespace

namespace {

struct Part {
  Section section;
  std::function<void(ByteWriter&)> write;
};

// The sections of a pack, each with its size and checksum, learnt by
// writing it once into a counter: nothing the size of a section is held.
std::vector<Part> PlanPack(const std::vector<const Collection*>& collections, uint32_t version, bool lexical_index) {
  if (version > kPackVersion || version < 3) throw Error(ErrorCode::kInvalidArgument, "packs are written as version 3 to " + std::to_string(kPackVersion));
  std::vector<Part> parts;
  for (uint32_t ci = 0; ci < collections.size(); ++ci) {
    const Collection& c = *collections[ci];
    auto add = [&](uint32_t kind, std::function<void(ByteWriter&)> write) { parts.push_back({Section{kind, ci, 0, 0, 0}, std::move(write)}); };
    add(kMeta, [&c](ByteWriter& w) { c.SaveMeta(w); });
    add(kChunks, [&c](ByteWriter& w) { c.SaveChunks(w); });
    if (c.has_vectors()) add(kVectors, [&c](ByteWriter& w) { c.SaveVectors(w); });
    if (c.uses_hnsw()) add(kHnsw, [&c, version](ByteWriter& w) { c.SaveHnsw(w, version < 4, version >= 6); });
    if (version >= 4 && lexical_index) add(kBm25, [&c](ByteWriter& w) { c.SaveBm25(w); });
    if (version >= 4 && c.piece_match()) add(kPieces, [&c](ByteWriter& w) { c.SavePieces(w); });
    if (version >= 5 && c.SavesRows()) add(kRows, [&c](ByteWriter& w) { c.SaveRows(w); });
  }
  uint64_t offset = kHeaderBytes + parts.size() * kEntryBytes + 4;
  for (Part& p : parts) {
    uint32_t crc = 0;
    ByteWriter w([&crc](const uint8_t* data, size_t n) { crc = Crc32(data, n, crc); });
    p.write(w);
    w.Flush();
    p.section = Section{p.section.kind, p.section.collection, offset, w.size(), crc};
    offset += w.size();
  }
  return parts;
}

// Header and section table, checksummed.
Bytes PackHead(const std::vector<Part>& parts, uint32_t version) {
  const uint64_t total = parts.empty() ? kHeaderBytes + 4 : parts.back().section.offset + parts.back().section.size;
  Bytes head;
  ByteWriter w(head);
  w.raw(kMagic, 8);
  w.u32(version);
  w.u32(static_cast<uint32_t>(parts.size()));
  w.u64(total);
  for (const Part& p : parts) {
    w.u32(p.section.kind);
    w.u32(p.section.collection);
    w.u64(p.section.offset);
    w.u64(p.section.size);
    w.u32(p.section.crc);
  }
  w.u32(Crc32(head.data(), head.size()));
  return head;
}

// The head, then each section written again into `sink`, checked against
// its plan: a section that changed while it was written is an error, never
// a pack whose checksums lie.
void EmitPack(const std::vector<Part>& parts, uint32_t version, const ByteWriter::Sink& sink) {
  const Bytes head = PackHead(parts, version);
  sink(head.data(), head.size());
  for (const Part& p : parts) {
    uint32_t crc = 0;
    ByteWriter w([&](const uint8_t* data, size_t n) {
      crc = Crc32(data, n, crc);
      sink(data, n);
    });
    p.write(w);
    w.Flush();
    if (w.size() != p.section.size || crc != p.section.crc) throw Error(ErrorCode::kInternal, "a pack section changed while it was written");
  }
}

}  // namespace

void SavePackTo(const std::vector<const Collection*>& collections, const ByteWriter::Sink& sink, uint32_t version,
                bool lexical_index) {
  EmitPack(PlanPack(collections, version, lexical_index), version, sink);
}

Bytes SavePack(const std::vector<const Collection*>& collections, uint32_t version, bool lexical_index) {
  const std::vector<Part> parts = PlanPack(collections, version, lexical_index);
  Bytes out;
  // Allocated once at its final size: a large pack costs its own bytes, not twice them.
  out.reserve(parts.empty() ? kHeaderBytes + 4 : parts.back().section.offset + parts.back().section.size);
  EmitPack(parts, version, [&out](const uint8_t* data, size_t n) { out.insert(out.end(), data, data + n); });
  return out;
}

namespace {

// Parses every section; `finish` builds what search derives from them (BM25).
// Reading vectors in place keeps the whole pack in memory for as long as the
// collection lives: worth it only where the vectors are most of the pack
// (millions of rows), not for text-heavy packs whose other sections are
// parsed into copies anyway.
constexpr size_t kInPlaceShareDivisor = 2;  // vectors >= 1/2 of the pack

std::vector<Collection> ParsePack(const uint8_t* data, size_t size, const ModelInfo* expected, bool finish,
                                  const std::shared_ptr<const void>& owner) {
  uint32_t version;
  std::vector<Section> sections = ReadTable(data, size, version);
  std::vector<Collection> out;
  uint32_t last_kind = 0;
  for (const Section& s : sections) {
    std::string what = std::string("pack section '") + KindName(s.kind) + "'";
    ByteReader r(data + s.offset, s.size, what);
    if (s.kind == kMeta) {
      if (s.collection != out.size()) Corrupt("collections out of order");
      out.push_back(Collection::LoadMeta(r));
      last_kind = kMeta;
      const Collection& c = out.back();
      if (expected && c.has_vectors() && !SameModel(c.model(), *expected)) {
        throw Error(ErrorCode::kModelMismatch, "collection '" + c.name() + "' was embedded with " + c.model().Describe() +
                                                   ", not with " + expected->Describe() +
                                                   ": rebuild it with this model or load that model");
      }
    } else {
      if (out.empty() || s.collection != out.size() - 1) Corrupt("section before its collection's meta");
      // meta, chunks, vectors, hnsw: each needs the ones before it.
      if (s.kind <= last_kind) Corrupt("sections out of order");
      last_kind = s.kind;
      Collection& c = out.back();
      switch (s.kind) {
        case kChunks: c.LoadChunks(r); break;
        case kVectors:
          if (!c.has_vectors()) Corrupt("vectors in a lexical-only collection");
          c.LoadVectors(r, owner && s.size >= size / kInPlaceShareDivisor ? owner : nullptr);
          break;
        case kHnsw:
          if (!c.has_vectors()) Corrupt("HNSW graph in a lexical-only collection");
          if (version >= 4) {
            c.LoadHnsw(r, 8, false, version >= 6);
          } else if (version >= 2) {
            c.LoadHnsw(r, 8, true);
          } else {
            // Version 1 copied hnswlib's size_t labels: 8 bytes from native
            // builds, 4 from wasm32. The wrong guess fails validation.
            try {
              c.LoadHnsw(r, 8, true);
              if (!r.done()) r.fail("unexpected bytes at the end of the section");
            } catch (const Error&) {
              r = ByteReader(data + s.offset, s.size, what);
              c.LoadHnsw(r, 4, true);
            }
          }
          break;
        case kBm25:
          if (version < 4) Corrupt("bm25 section in a pack older than version 4");
          c.LoadBm25(r);
          break;
        case kPieces:
          if (version < 4 || !c.has_vectors()) Corrupt("pieces section in a pack older than version 4 or a lexical collection");
          c.LoadPieces(r);
          break;
        case kRows:
          if (version < 5 || !c.has_vectors()) Corrupt("rows section in a pack older than version 5 or a lexical collection");
          c.LoadRows(r);
          break;
        default: Corrupt("unknown section kind " + std::to_string(s.kind));
      }
    }
    if (!r.done()) r.fail("unexpected bytes at the end of the section");
  }
  if (finish) for (Collection& c : out) c.FinishLoad();
  return out;
}

}  // namespace

std::vector<Collection> LoadPack(const uint8_t* data, size_t size, const ModelInfo* expected,
                                 std::shared_ptr<const void> owner) {
  return ParsePack(data, size, expected, true, owner);
}

PackInfo InspectPack(const uint8_t* data, size_t size) {
  PackInfo info;
  std::vector<Section> sections = ReadTable(data, size, info.version);
  info.bytes = size;
  for (const Section& s : sections) info.sections.push_back({KindName(s.kind), s.collection, s.offset, s.size});
  for (const Collection& c : ParsePack(data, size, nullptr, false, nullptr)) {
    info.collections.push_back({c.name(), c.model(), c.size(), c.uses_hnsw()});
  }
  return info;
}

}  // namespace vesper
