#include "tests/fuzz/targets.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/chunker/chunker.h"
#include "core/collection/pack.h"
#include "core/collection/split.h"
#include "core/embed/static_model.h"
#include "core/lexical/bm25.h"
#include "core/persona/answer.h"
#include "core/persona/persona.h"
#include "core/persona/sentences.h"
#include "core/lexical/lexicon.h"
#include "core/text/words.h"
#include "core/tokenizer/tokenizer.h"
#include "core/search/answerability.h"
#include "core/util/checksum.h"
#include "core/util/error.h"
#include "core/util/utf8.h"
#include "tests/native/helpers.h"

namespace vesper::fuzz {

namespace {

std::string_view Text(const uint8_t* data, size_t size) { return {reinterpret_cast<const char*>(data), size}; }

template <typename F>
void Expecting(F&& f) {
  try {
    f();
  } catch (const Error&) {
    // Refused with a clear error: what bad input should get.
  }
}

constexpr size_t kPackHeaderBytes = 8 + 4 + 4 + 8;  // magic, version, section count, total bytes
constexpr size_t kPackEntryBytes = 4 + 4 + 8 + 8 + 4;  // kind, collection, offset, size, crc32

void PutU32(uint8_t* at, uint32_t v) { std::memcpy(at, &v, 4); }
void PutU64(uint8_t* at, uint64_t v) { std::memcpy(at, &v, 8); }
uint64_t GetU64(const uint8_t* at) {
  uint64_t v;
  std::memcpy(&v, at, 8);
  return v;
}

// The pack's framing made consistent again after a mutation: total size,
// section offsets laid end to end, and every checksum recomputed, as an
// attacker would. Without this almost every mutation dies at a checksum and
// the section parsers behind it are never fuzzed. Returns false when the
// bytes are too short to hold a header and table.
}  // namespace

bool RepairPackFraming(std::vector<uint8_t>& b) {
  if (b.size() < kPackHeaderBytes + 4 || std::memcmp(b.data(), "VESPERPK", 8) != 0) return false;
  uint32_t count;
  std::memcpy(&count, b.data() + 12, 4);
  count = static_cast<uint32_t>(std::min<size_t>(count, (b.size() - kPackHeaderBytes - 4) / kPackEntryBytes));
  PutU32(b.data() + 12, count);
  PutU64(b.data() + 16, b.size());
  const size_t table_end = kPackHeaderBytes + count * kPackEntryBytes;
  uint64_t offset = table_end + 4;
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t* e = b.data() + kPackHeaderBytes + i * kPackEntryBytes;
    const uint64_t left = b.size() - offset;
    const uint64_t size = i + 1 == count ? left : std::min(GetU64(e + 16), left);
    PutU64(e + 8, offset);
    PutU64(e + 16, size);
    PutU32(e + 24, Crc32(b.data() + offset, size));
    offset += size;
  }
  PutU32(b.data() + table_end, Crc32(b.data(), table_end));
  return true;
}

namespace {

// What loaded must save and load again: a pack the engine accepts but then
// cannot write back would fail the user after an import. A refusal here is a
// finding, so it aborts (libFuzzer reports it; the replay test crashes).
void RequireRoundTrip(const std::vector<Collection>& loaded) {
  std::vector<const Collection*> ptrs;
  for (const Collection& c : loaded) ptrs.push_back(&c);
  const Bytes saved = SavePack(ptrs);
  try {
    LoadPack(saved.data(), saved.size());
  } catch (const Error&) {
    __builtin_trap();
  }
}

// A pack is loaded, every collection in it searched (so a graph or index
// that loads but is wrong shows up as a fault rather than passing unseen),
// then saved and loaded again.
void SearchPack(const uint8_t* data, size_t size) {
  Expecting([&] {
    std::vector<Collection> loaded = LoadPack(data, size);
    for (Collection& c : loaded) {
      SearchOptions opt;
      opt.k = 5;
      opt.threshold = -1.f;
      opt.mode = c.has_vectors() ? SearchMode::kVector : SearchMode::kLexical;
      std::vector<float> q(c.has_vectors() ? c.model().dims : 0, 1.f);
      c.Search("neural networks", q.empty() ? nullptr : q.data(), q.size(), opt);
    }
    RequireRoundTrip(loaded);
  });
}

// The bytes as they are (the framing checks), then with the framing
// repaired (the section parsers, the graph and the search behind them).
void Pack(const uint8_t* data, size_t size) {
  SearchPack(data, size);
  std::vector<uint8_t> repaired(data, data + size);
  if (RepairPackFraming(repaired)) SearchPack(repaired.data(), repaired.size());
}

// The answerability calibration a model manifest carries, parsed by the core
// and used on evidence of every shape.
void Calibration(const uint8_t* data, size_t size) {
  Expecting([&] {
    const Answerability a = Answerability::FromJson(Text(data, size));
    QueryEvidence e;
    for (const char* language : {"en", "pt", "zh", "xx"}) {
      e.language = language;
      e.has_vectors = language[0] != 'x';
      Decide(a, e);
    }
  });
}

void StaticTable(const uint8_t* data, size_t size) {
  Expecting([&] {
    auto model = StaticModel::FromBytes(Text(data, size));
    const int32_t ids[] = {0, 1, 2};
    std::vector<float> out(model->dims());
    Expecting([&] { model->Embed(ids, 3, out.data()); });
  });
}

// A block of a model's rows fetched over the network (or a pack's rows
// section): added to a model of the shape its header names (bounded, so the
// fuzzer explores parsing, not allocation), then embedded from and written
// back; what it added must round-trip bit for bit.
constexpr uint32_t kMaxFuzzVocab = 4096, kMaxFuzzDims = 512;
void RowSet(const uint8_t* data, size_t size) {
  const std::string_view bytes = Text(data, size);
  uint32_t vocab = 8, dims = 4;
  if (size >= 16) std::memcpy(&vocab, data + 8, 4), std::memcpy(&dims, data + 12, 4);
  if (vocab == 0 || vocab > kMaxFuzzVocab || dims == 0 || dims > kMaxFuzzDims) vocab = 8, dims = 4;
  auto model = StaticModel::Sparse(vocab, dims);
  Expecting([&] { model->AddRows(bytes); });
  std::vector<int32_t> held;
  for (size_t id = 0; id < model->vocab(); ++id) if (model->Has(id)) held.push_back(static_cast<int32_t>(id));
  if (held.empty()) return;
  std::vector<float> out(model->dims());
  Expecting([&] { model->Embed(held.data(), held.size(), out.data()); });
  const std::vector<uint8_t> again = model->RowSet(held);
  auto copy = StaticModel::Sparse(vocab, dims);
  copy->AddRows(std::string_view(reinterpret_cast<const char*>(again.data()), again.size()));
  if (copy->RowSet(held) != again) std::abort();  // what was added is not what is written back
}

void TokenizerModel(const uint8_t* data, size_t size) {
  Expecting([&] {
    auto tok = Tokenizer::FromBytes(Text(data, size));
    std::vector<int32_t> ids;
    tok->EncodeIds("Redes neurais do zero, 从零开始", ids);
  });
}

void PersonaFile(const uint8_t* data, size_t size) {
  Expecting([&] { Persona::FromJson(Text(data, size)); });
}

// The persona and the demo's knowledge base (lexical), built once.
struct AnswerWorld {
  Persona persona;
  Collection db;
};

const AnswerWorld& TheAnswerWorld() {
  static const AnswerWorld* world = [] {
    Collection db("kb", ModelInfo{});
    for (const test::Seed& s : test::Seeds()) db.Add(ChunkDocument(s.name, s.text));
    return new AnswerWorld{Persona::FromJson(test::ReadFile(std::string(VESPER_KB_DIR) + "/persona.json")), std::move(db)};
  }();
  return *world;
}

// A turn of a conversation: the input's first byte sets the state's flags and
// turn count, the rest is NUL-separated fields: the question, the topic, then
// passage ids and quoted units alternately, as a page or a session file could
// hand them back. A follow-up ("why?") then runs on the state it left.
void Answering(const uint8_t* data, size_t size) {
  if (size == 0) return;
  ConversationState state;
  state.disclaimer_shown = data[0] & 1;
  state.in_role = data[0] & 2;
  state.turns = data[0] >> 2;
  std::vector<std::string_view> fields;
  std::string_view rest = Text(data + 1, size - 1);
  for (size_t at = 0; at <= rest.size();) {
    size_t end = std::min(rest.find('\0', at), rest.size());
    fields.push_back(rest.substr(at, end - at));
    at = end + 1;
  }
  if (fields.size() > 1) state.topic = fields[1];
  for (size_t i = 2; i < fields.size(); ++i) (i % 2 ? state.said : state.passages).emplace_back(fields[i]);
  const AnswerWorld& w = TheAnswerWorld();
  Expecting([&] {
    AnswerQuestion(w.persona, w.db, fields[0], nullptr, 0, state);
    AnswerQuestion(w.persona, w.db, "why?", nullptr, 0, state);
  });
}

// Text paths: only valid UTF-8 reaches them past the boundary check.
void Chunker(const uint8_t* data, size_t size) {
  Expecting([&] {
    for (const Chunk& c : ChunkDocument("fuzz.txt", Text(data, size))) SplitSentences(c.text);
  });
}

void Words(const uint8_t* data, size_t size) {
  const std::string_view text = Text(data, size);
  if (utf8::FindInvalid(text) != std::string_view::npos) return;
  Bm25Index index;
  size_t half = size / 2;  // two documents, split where a character starts
  while (half > 0 && (data[half] & 0xC0) == 0x80) --half;
  index.Add(0, text.substr(0, half));
  index.Add(1, text.substr(half));
  std::vector<Hit> hits;
  index.Search(text, 2, hits);
}

// A model's lexicon (core/lexical/lexicon.h): the table before the first
// NUL, a query after it, translated between every pair of languages and
// searched over a two-document index.
// The table cut into shards, loaded as a page loads them (the shards each
// translation names, then the call again), translates as the whole table.
// Only the product's languages and one other are paired: a mutated table
// names dozens of languages, and every pair of them (each translation
// retried as its shards arrive) made one input run past libFuzzer's timeout
// (tests/data/fuzz/lexicon/many-languages-long-query.bin), time spent on
// the target's own loop; the product translates one query language into the
// collection's few.
std::vector<std::string> PairedLanguages(const std::vector<std::string>& languages) {
  std::vector<std::string> out;
  for (const std::string& l : languages) {
    const bool product = l == "en" || l == "pt" || l == "zh";
    const bool first_other = std::none_of(out.begin(), out.end(), [](const std::string& o) {
      return o != "en" && o != "pt" && o != "zh";
    });
    if (product || first_other) out.push_back(l);
  }
  return out;
}

void ShardedAsWhole(std::string_view table, const Lexicon& whole, std::string_view query) {
  const Lexicon::Shards shards = Lexicon::Split(table, 3);
  if (shards.languages.empty()) return;
  auto sharded = Lexicon::Sharded(3, shards.languages, shards.max_words, shards.max_han);
  const std::vector<std::string> paired = PairedLanguages(shards.languages);
  for (const std::string& from : paired) {
    for (const std::string& to : paired) {
      for (int attempt = 0;; ++attempt) {
        try {
          if (sharded->Translate(query, from, to) != whole.Translate(query, from, to)) std::abort();
          break;
        } catch (const MissingShards& e) {
          if (attempt > 16) std::abort();  // a translation that never settles
          for (const auto& [name, text] : shards.files) {
            if (std::find(e.names().begin(), e.names().end(), name) != e.names().end()) sharded->AddShard(name, text);
          }
        }
      }
    }
  }
}

void LexiconTable(const uint8_t* data, size_t size) {
  const std::string_view all = Text(data, size);
  const size_t cut = std::min(all.find('\0'), all.size());
  const std::string_view query = cut < all.size() ? all.substr(cut + 1) : std::string_view("camera 摄像头 câmera");
  Expecting([&] {
    auto lexicon = Lexicon::FromTsv(all.substr(0, cut));
    Bm25Index index;
    index.Add(0, "a câmera e o carro; the camera and the car");
    index.Add(1, "摄像头和汽车");
    std::vector<Hit> hits;
    for (const char* from : {"en", "pt", "zh"}) {
      for (const char* to : {"en", "pt", "zh"}) {
        index.SearchAlternatives(lexicon->Translate(query, from, to), 2, hits);
      }
    }
    ShardedAsWhole(all.substr(0, cut), *lexicon, query);
  });
  // The input as one shard of a lexicon served in parts: refused or kept, never a fault.
  auto sharded = Lexicon::Sharded(2, {"en", "pt", "zh"}, kMaxKeyWords, kMaxKeyHan);
  Expecting([&] { sharded->AddShard("en-1", all.substr(0, cut)); });
  Expecting([&] { sharded->Translate(query, "en", "pt"); });
}

}  // namespace

bool RepairSplitFraming(std::vector<uint8_t>& b) {
  constexpr size_t kHead = 8 + 4 + 8;  // magic, version, total bytes
  if (b.size() < kHead + 4 + 4) return false;
  const bool entry = std::memcmp(b.data(), "VESPERIX", 8) == 0;
  const bool fragment = std::memcmp(b.data(), "VESPERTF", 8) == 0 || std::memcmp(b.data(), "VESPERMF", 8) == 0;
  if (!entry && !fragment) return false;
  if (fragment) PutU32(b.data() + kHead, 0);
  PutU64(b.data() + 12, b.size());
  PutU32(b.data() + b.size() - 4, Crc32(b.data(), b.size() - 4));
  return true;
}

namespace {

const char* const kSplitPages[][2] = {{"/a/#intro", "# Networks\nNeural networks learn from data by gradient descent."},
                                      {"/b/#cameras", "# Cameras\nTesla chose cameras over LiDAR for its cars."},
                                      {"/c/", "# Redes\nRedes neurais aprendem com dados. 神经网络从数据中学习。"}};
constexpr const char* kSplitQuery = "neural networks cameras 学习";

SplitOptions SmallSplitParts() {
  SplitOptions o;
  o.term_fragment_bytes = 64;
  o.page_fragment_bytes = 16;
  o.match_neighbors = 4;
  o.match_fragment_pieces = 256;
  return o;
}

// A lexical collection of a few pages, split into many small parts.
SplitFiles MakeReferenceSplit() {
  Collection c("site", ModelInfo{});
  for (auto& [source, text] : kSplitPages) c.Add(ChunkDocument(source, text));
  return SplitCollection(c, SmallSplitParts());
}

const SplitFiles& ReferenceSplit() {
  static const SplitFiles files = MakeReferenceSplit();
  return files;
}

// The same pages matched by pieces: a split with match fragments. The model
// is a small made-up table over the test tokenizer's vocabulary (row i holds
// a few sines of i: distinct rows, some near each other).
struct MatchedModel {
  std::shared_ptr<const Tokenizer> tokenizer;
  std::shared_ptr<const PieceMatcher> matcher;
  ModelInfo info;
};

const MatchedModel& TinyModel() {
  static const MatchedModel m = [] {
    MatchedModel out;
    out.tokenizer = test::TestTokenizer("unigram");
    constexpr uint32_t kDims = 8;
    const uint32_t vocab = static_cast<uint32_t>(out.tokenizer->vocab_size());
    std::string table = "VSTM";
    for (uint32_t v : {1u, vocab, kDims, 0u}) table.append(reinterpret_cast<const char*>(&v), 4);
    for (uint32_t i = 0; i < vocab; ++i) {
      for (uint32_t d = 0; d < kDims; ++d) {
        const float x = std::sin(0.37f * static_cast<float>(i) * static_cast<float>(d + 1)) + 0.1f;
        table.append(reinterpret_cast<const char*>(&x), 4);
      }
    }
    std::shared_ptr<const StaticModel> model = StaticModel::FromBytes(table);
    out.matcher = std::make_shared<PieceMatcher>(model);
    out.info.id = "fuzz-static";
    out.info.dims = static_cast<uint32_t>(model->dims());
    return out;
  }();
  return m;
}

const SplitFiles& MatchedSplit() {
  static const SplitFiles files = [] {
    const MatchedModel& m = TinyModel();
    Collection c("site", m.info);
    c.EnablePieceMatch(m.matcher, m.tokenizer);
    for (auto& [source, text] : kSplitPages) {
      std::vector<Chunk> chunks = ChunkDocument(source, text);
      std::vector<float> vectors(chunks.size() * m.info.dims);
      for (size_t i = 0; i < chunks.size(); ++i) {
        const std::vector<int32_t> ids = m.tokenizer->Encode(chunks[i].text).ids;
        m.matcher->model().Embed(ids.data(), ids.size(), vectors.data() + i * m.info.dims);
      }
      const size_t n = chunks.size();
      c.Add(std::move(chunks), vectors.data(), n);
    }
    return SplitCollection(c, SmallSplitParts());
  }();
  return files;
}

// A query through a split index, fetching every part it names from `ref`,
// then searching what it fetched (by pieces too, with a matched split).
void SearchSplit(SplitIndex& index, const SplitFiles& ref, bool matched) {
  Collection part = index.MakeCollection();
  if (matched) part.EnablePieceMatch(TinyModel().matcher, TinyModel().tokenizer);
  for (int round = 0; round < 3; ++round) {
    for (const std::string& name : index.Missing(kSplitQuery, part)) {
      const size_t i = std::strtoul(name.c_str() + 1, nullptr, 10);
      if (name[0] == 't' && i < ref.terms.size()) index.AddTerms(static_cast<uint32_t>(i), ref.terms[i].data(), ref.terms[i].size());
      if (name[0] == 'p' && i < ref.pages.size()) index.AddPages(static_cast<uint32_t>(i), ref.pages[i].data(), ref.pages[i].size(), part);
      if (name[0] == 'm' && i < ref.matches.size()) index.AddMatches(static_cast<uint32_t>(i), ref.matches[i].data(), ref.matches[i].size());
    }
  }
  SearchOptions opt;
  opt.mode = matched ? SearchMode::kHybrid : SearchMode::kLexical;
  opt.threshold = -1.f;
  std::vector<float> q(TinyModel().info.dims, 0.f);
  q[0] = 1.f;
  part.Search("neural networks cameras", matched ? q.data() : nullptr, matched ? q.size() : 0, opt);
}

// The input as an entry (then a query through it), and as the reference's
// first term fragment (then a query through the reference): refused, or
// used, never a fault. Each as it is and with its framing repaired.
void SplitParts(const uint8_t* data, size_t size) {
  std::vector<uint8_t> repaired(data, data + size);
  const bool fixed = RepairSplitFraming(repaired);
  for (const std::vector<uint8_t>& bytes : {std::vector<uint8_t>(data, data + size), repaired}) {
    Expecting([&] {
      SplitIndex index = SplitIndex::Load(bytes.data(), bytes.size());
      SearchSplit(index, ReferenceSplit(), false);
    });
    Expecting([&] {
      const SplitFiles& ref = ReferenceSplit();
      SplitIndex index = SplitIndex::Load(ref.entry.data(), ref.entry.size());
      index.AddTerms(0, bytes.data(), bytes.size());
      SearchSplit(index, ref, false);
    });
    Expecting([&] {  // as the first match fragment of a split that matches pieces
      const SplitFiles& ref = MatchedSplit();
      SplitIndex index = SplitIndex::Load(ref.entry.data(), ref.entry.size());
      index.AddMatches(0, bytes.data(), bytes.size());
      SearchSplit(index, ref, true);
    });
    if (!fixed) break;
  }
}

}  // namespace

const std::vector<std::vector<uint8_t>>& ReferenceSplitFiles() {
  static const std::vector<std::vector<uint8_t>> files = [] {
    std::vector<std::vector<uint8_t>> out{ReferenceSplit().entry};
    for (const Bytes& t : ReferenceSplit().terms) out.push_back(t);
    for (const Bytes& m : MatchedSplit().matches) out.push_back(m);
    return out;
  }();
  return files;
}

const Target kTargets[] = {
    {"pack", Pack},        {"static_model", StaticTable}, {"tokenizer_model", TokenizerModel},
    {"persona", PersonaFile}, {"chunker", Chunker},       {"words", Words},
    {"calibration", Calibration}, {"answer", Answering},   {"lexicon", LexiconTable},
    {"row_set", RowSet},   {"split", SplitParts},
};
const size_t kTargetCount = sizeof(kTargets) / sizeof(kTargets[0]);

const Target* FindTarget(const char* name) {
  for (const Target& t : kTargets) {
    if (std::strcmp(t.name, name) == 0) return &t;
  }
  return nullptr;
}

}  // namespace vesper::fuzz
