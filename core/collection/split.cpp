#include "core/collection/split.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/collection/pack.h"
#include "core/collection/split_format.h"
#include "core/util/checksum.h"
#include "core/util/error.h"

namespace vesper {
namespace {

using split_format::kCosineScale;
using split_format::kEntryMagic;
using split_format::kMatchMagic;
using split_format::kTermsMagic;
constexpr float kWeightScale = 255.f;  // a term's weight on a page, as a byte of the heaviest one
constexpr size_t kHeadBytes = 8 + 4 + 8;  // magic, version, total bytes

}  // namespace

namespace split_format {

void Open(Bytes& out, const char* magic) {
  ByteWriter w(out);
  w.raw(magic, 8);
  w.u32(kSplitVersion);
  w.u64(0);
}

void Close(Bytes& out) {
  ByteWriter w(out);
  w.patch_u64(12, out.size() + 4);
  w.u32(Crc32(out.data(), out.size()));
}

ByteReader Check(const uint8_t* data, size_t size, const char* magic, const std::string& what) {
  if (!data || size < kHeadBytes + 4 || std::memcmp(data, magic, 8) != 0) {
    throw Error(ErrorCode::kCorruptData, what + " rejected: not a vesper split index file");
  }
  uint32_t version;
  uint64_t total;
  std::memcpy(&version, data + 8, 4);
  std::memcpy(&total, data + 12, 8);
  if (version != kSplitVersion) {
    throw Error(ErrorCode::kUnsupported, what + ": split index version " + std::to_string(version) +
                                             " is not supported by this build (it reads version " +
                                             std::to_string(kSplitVersion) + ")");
  }
  if (total != size) {
    throw Error(ErrorCode::kCorruptData, what + " rejected: truncated or padded (" + std::to_string(size) +
                                             " bytes, its header says " + std::to_string(total) + ")");
  }
  uint32_t stored;
  std::memcpy(&stored, data + size - 4, 4);
  if (Crc32(data, size - 4) != stored) throw Error(ErrorCode::kCorruptData, what + " rejected: checksum mismatch");
  return ByteReader(data + kHeadBytes, size - kHeadBytes - 4, what);
}

}  // namespace split_format

namespace {

// Live pages numbered densely in the order the collection first met them,
// each with its live passages.
std::vector<std::vector<uint32_t>> LivePages(const Collection& c) {
  std::vector<std::vector<uint32_t>> by_id(c.pages());
  for (uint32_t label = 0; label < c.slots(); ++label) {
    if (c.alive(label)) by_id[c.page_of(label)].push_back(label);
  }
  by_id.erase(std::remove_if(by_id.begin(), by_id.end(), [](const auto& p) { return p.empty(); }), by_id.end());
  return by_id;
}

struct TermRecord {
  std::string term;
  uint32_t df = 0, page_df = 0;
  std::vector<std::pair<uint32_t, float>> pages;  // page, weight; by page
};

// Each term's passages and pages, and the pages it weighs most in (the
// weight page evidence gives it there: Bm25Index::ScoreGroups), sorted by
// term; `most` receives the heaviest weight kept, a byte's full scale.
std::vector<TermRecord> TermRecords(const Collection& c, const std::vector<uint32_t>& page_of_label, size_t pages,
                                    size_t pages_per_term, float& most) {
  most = 0.f;
  std::vector<TermRecord> records;
  c.lexical().ForEachTerm(page_of_label, pages, [&](const Bm25Index::TermWeights& t) {
    TermRecord r{*t.term, t.df, static_cast<uint32_t>(t.groups.size()), t.groups};
    auto heavier = [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; };
    if (r.pages.size() > pages_per_term) {
      std::nth_element(r.pages.begin(), r.pages.begin() + pages_per_term, r.pages.end(), heavier);
      r.pages.resize(pages_per_term);
    }
    for (const auto& [page, w] : r.pages) most = std::max(most, w);
    std::sort(r.pages.begin(), r.pages.end());
    records.push_back(std::move(r));
  });
  std::sort(records.begin(), records.end(), [](const TermRecord& a, const TermRecord& b) { return a.term < b.term; });
  return records;
}

void WriteTerm(ByteWriter& w, const TermRecord& r, float most) {
  w.str(r.term);
  w.varint(r.df);
  w.varint(r.page_df);
  w.varint(static_cast<uint32_t>(r.pages.size()));
  uint32_t next = 0;
  for (const auto& [page, weight] : r.pages) {
    w.varint(page - next);
    const float scaled = most > 0.f ? std::round(kWeightScale * weight / most) : 1.f;
    w.u8(static_cast<uint8_t>(std::clamp(scaled, 1.f, kWeightScale)));
    next = page + 1;
  }
}

// Term fragments cut past `bytes`; first_terms receives each one's first term ("" for the first).
std::vector<Bytes> TermFragments(const std::vector<TermRecord>& records, float most, size_t bytes,
                                 std::vector<std::string>& first_terms) {
  std::vector<Bytes> files;
  size_t i = 0;
  while (i < records.size()) {
    const size_t begin = i;
    Bytes body;
    ByteWriter w(body);
    while (i < records.size() && (i == begin || body.size() < bytes)) WriteTerm(w, records[i++], most);
    Bytes file;
    split_format::Open(file, kTermsMagic);
    ByteWriter f(file);
    f.u32(static_cast<uint32_t>(files.size()));
    f.u64(i - begin);
    f.raw(body.data(), body.size());
    split_format::Close(file);
    first_terms.push_back(files.empty() ? std::string() : records[begin].term);
    files.push_back(std::move(file));
  }
  if (files.empty()) first_terms.push_back(std::string());  // one range, no terms: every word is unknown
  return files;
}

// Packs of consecutive pages' passages; first_pages receives each one's first page, then the page count.
std::vector<Bytes> PageFragments(const Collection& c, const std::vector<std::vector<uint32_t>>& pages, size_t bytes,
                                 std::vector<uint32_t>& first_pages) {
  std::vector<Bytes> files;
  CollectionOptions options;
  options.index = IndexKind::kExact;
  options.vectors = VectorFormat::kInt8;
  std::vector<float> vector(c.model().dims);
  size_t page = 0;
  while (page < pages.size()) {
    first_pages.push_back(static_cast<uint32_t>(page));
    Collection part(c.name(), c.model(), options);
    std::vector<Chunk> chunks;
    std::vector<float> vectors;
    size_t text = 0;
    for (; page < pages.size() && (chunks.empty() || text < bytes); ++page) {
      for (uint32_t label : pages[page]) {
        chunks.push_back(c.chunk(label));
        text += chunks.back().text.size();
        if (c.has_vectors() && c.vector(label, vector.data())) vectors.insert(vectors.end(), vector.begin(), vector.end());
      }
    }
    const size_t n = chunks.size();
    part.Add(std::move(chunks), vectors.empty() ? nullptr : vectors.data(), vectors.empty() ? 0 : n);
    files.push_back(SavePack({&part}, kPackVersion, /*lexical_index=*/false));
  }
  first_pages.push_back(static_cast<uint32_t>(pages.size()));
  return files;
}

uint8_t CosineByte(float cosine) { return static_cast<uint8_t>(std::lround(kCosineScale * std::clamp(cosine, 0.f, 1.f))); }

void WriteNeighbors(ByteWriter& w, const PieceNeighborList& list) {
  for (float f : list.floors) w.u8(CosineByte(f));
  w.varint(static_cast<uint32_t>(list.nearest.size()));
  uint32_t next = 0;
  for (const PieceNeighbor& n : list.nearest) {
    w.varint(static_cast<uint32_t>(n.id) - next);
    w.u8(CosineByte(n.cosine));
    next = static_cast<uint32_t>(n.id) + 1;
  }
}

// Piece matching's neighbour lists, `per` consecutive piece ids a fragment;
// none for a collection that does not match pieces.
std::vector<Bytes> MatchFragments(const Collection& c, const SplitOptions& options) {
  const PieceMatcher* matcher = c.piece_matcher();
  if (!matcher || options.match_neighbors == 0) return {};
  const std::vector<uint8_t>& known = c.KnownPieces();
  std::vector<int32_t> ids;
  for (size_t id = 0; id < known.size(); ++id) {
    if (known[id]) ids.push_back(static_cast<int32_t>(id));
  }
  const std::vector<PieceNeighborList> lists = NearestPieces(matcher->model(), ids, options.match_neighbors, options.on_progress);
  std::vector<Bytes> files;
  for (size_t first = 0; first < lists.size(); first += options.match_fragment_pieces) {
    Bytes file;
    split_format::Open(file, kMatchMagic);
    ByteWriter w(file);
    w.u32(static_cast<uint32_t>(files.size()));
    const size_t end = std::min(lists.size(), first + options.match_fragment_pieces);
    for (size_t id = first; id < end; ++id) WriteNeighbors(w, lists[id]);
    split_format::Close(file);
    files.push_back(std::move(file));
  }
  return files;
}

}  // namespace

SplitFiles SplitCollection(const Collection& c, const SplitOptions& options) {
  if (c.size() == 0) throw Error(ErrorCode::kInvalidArgument, "collection '" + c.name() + "' has no passages to split");
  if (options.pages_per_term == 0 || options.term_fragment_bytes == 0 || options.match_fragment_pieces == 0 ||
      options.match_neighbors > split_format::kMaxNeighbors) throw Error(ErrorCode::kInvalidArgument, "bad split options");
  const std::vector<std::vector<uint32_t>> pages = LivePages(c);
  std::vector<uint32_t> page_of_label(c.slots(), UINT32_MAX);  // past every page: removed passages
  for (uint32_t p = 0; p < pages.size(); ++p) {
    for (uint32_t label : pages[p]) page_of_label[label] = p;
  }
  SplitFiles out;
  std::vector<std::string> first_terms;
  std::vector<uint32_t> first_pages;
  float most;
  const std::vector<TermRecord> records = TermRecords(c, page_of_label, pages.size(), options.pages_per_term, most);
  out.terms = TermFragments(records, most, options.term_fragment_bytes, first_terms);
  out.pages = PageFragments(c, pages, options.page_fragment_bytes, first_pages);
  out.matches = MatchFragments(c, options);

  split_format::Open(out.entry, kEntryMagic);
  ByteWriter w(out.entry);
  Bytes meta;
  ByteWriter mw(meta);
  c.SaveMeta(mw);
  w.str(std::string_view(reinterpret_cast<const char*>(meta.data()), meta.size()));
  w.u64(c.lexical().size());
  w.u64(c.lexical().total_length());
  w.u64(pages.size());
  w.u64(c.Languages().size());
  for (const std::string& l : c.Languages()) w.str(l);
  const std::vector<float> centroid = c.has_vectors() ? c.Centroid() : std::vector<float>();
  w.u64(centroid.size());
  for (float x : centroid) w.f32(x);
  const std::vector<uint8_t>& known = c.KnownPieces();
  w.u32(static_cast<uint32_t>(known.size()));
  for (size_t i = 0; i < known.size(); i += 8) {
    uint8_t bits = 0;
    for (size_t b = 0; b < 8 && i + b < known.size(); ++b) bits |= static_cast<uint8_t>((known[i + b] ? 1 : 0) << b);
    w.u8(bits);
  }
  w.u32(out.matches.empty() ? 0 : static_cast<uint32_t>(options.match_fragment_pieces));
  w.u64(first_terms.size());
  for (const std::string& t : first_terms) w.str(t);
  w.u64(first_pages.size());
  for (uint32_t p : first_pages) w.varint(p);
  split_format::Close(out.entry);
  return out;
}

}  // namespace vesper
