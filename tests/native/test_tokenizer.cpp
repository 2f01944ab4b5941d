#include <catch2/catch.hpp>

#include "core/util/error.h"
#include "helpers.h"

using namespace vesper;

namespace {

// Input and what decoding its ids gives back: SentencePiece's NFKC
// normalisation folds full-width punctuation and collapses white space.
const std::pair<const char*, const char*> kSamples[] = {
    {"Software 2.0 is written in neural network weights.", "Software 2.0 is written in neural network weights."},
    {"A Tesla abandonou o LiDAR e apostou só em câmeras: visão é suficiente?",
     "A Tesla abandonou o LiDAR e apostou só em câmeras: visão é suficiente?"},
    {"反向传播是深度学习的核心，自动驾驶需要摄像头。", "反向传播是深度学习的核心,自动驾驶需要摄像头。"},
    {"Emoji 🌍 becomes 3 tokens! 👩🏽‍💻 ❤️", "Emoji 🌍 becomes 3 tokens! 👩🏽‍💻 ❤️"},
    {"  leading and   inner   spaces ", "leading and inner spaces"},
    {"ac\xcc\xa7" "a\xcc\x83" "o", "ação"},  // decomposed accents compose
};

}  // namespace

TEST_CASE("tokenizer round trips en/pt/zh/emoji with unigram and BPE", "[tokenizer]") {
  for (const char* kind : {"unigram", "bpe"}) {
    auto tok = test::TestTokenizer(kind);
    INFO(kind);
    CHECK(tok->vocab_size() >= 1000);
    for (auto [s, expected] : kSamples) {
      INFO(s);
      Encoding e = tok->Encode(s);
      REQUIRE(!e.ids.empty());
      CHECK(e.ids.size() == e.pieces.size());
      CHECK(tok->Decode(e.ids) == expected);
      // Offsets are byte spans of the input that the pieces came from.
      for (size_t i = 0; i < e.length; ++i) {
        CHECK(e.begin[i] <= e.end[i]);
        CHECK(e.end[i] <= std::string(s).size());
      }
    }
  }
}

TEST_CASE("ids remembered for texts encoded again are the ids encoding afresh gives", "[tokenizer]") {
  // Tokenizer::PlainIds keeps the last texts' ids: a text met again, after
  // others have pushed it out, and texts that differ by a byte must still
  // get exactly what encoding them afresh gives.
  auto tok = test::TestTokenizer("unigram");
  std::vector<std::string> texts;
  for (auto [s, expected] : kSamples) texts.push_back(s);
  for (int i = 0; i < 600; ++i) texts.push_back("passage " + std::to_string(i % 300) + ": " + kSamples[i % 6].first);
  texts.push_back(std::string(3000, 'a') + " past the remembered length");
  texts.push_back(texts.back());
  for (auto [s, expected] : kSamples) texts.push_back(std::string(s) + " ");
  // Encoding with pieces and offsets never reads the remembered ids.
  EncodeOptions full;
  full.add_special = false;
  EncodeOptions ids_only = full;
  ids_only.ids_only = true;
  std::vector<int32_t> ids;
  for (const std::string& t : texts) {
    INFO(t.substr(0, 40));
    const std::vector<int32_t> expected = tok->Encode(t, full).ids;
    tok->EncodeIds(t, ids);
    CHECK(ids == expected);
    CHECK(tok->Encode(t, ids_only).ids == expected);
    CHECK(tok->CountTokens(t) == expected.size());
  }
}

TEST_CASE("byte offsets point at the surface text", "[tokenizer]") {
  auto tok = test::TestTokenizer("unigram");
  std::string s = "Karpathy 在 Tesla 负责 Autopilot";
  Encoding e = tok->Encode(s);
  std::string rebuilt;
  for (size_t i = 0; i < e.length; ++i) rebuilt += s.substr(e.begin[i], e.end[i] - e.begin[i]);
  // Pieces' spans cover every non-space byte exactly once, in order.
  std::string nospace;
  for (char c : s) if (c != ' ') nospace += c;
  std::string rebuilt_nospace;
  for (char c : rebuilt) if (c != ' ') rebuilt_nospace += c;
  CHECK(rebuilt_nospace == nospace);
}

TEST_CASE("special token policy, truncation and padding", "[tokenizer]") {
  SpecialTokenPolicy policy;
  policy.add_bos = true;
  policy.add_eos = true;
  auto tok = test::TestTokenizer("unigram", policy);
  REQUIRE(tok->bos_id() == 1);
  REQUIRE(tok->eos_id() == 2);
  REQUIRE(tok->pad_id() == 3);

  Encoding plain = tok->Encode("deep learning from scratch", {false, 0, 0});
  Encoding e = tok->Encode("deep learning from scratch");
  REQUIRE(e.length == plain.length + 2);
  CHECK(e.ids.front() == 1);
  CHECK(e.ids.back() == 2);
  CHECK(std::equal(plain.ids.begin(), plain.ids.end(), e.ids.begin() + 1));
  CHECK(e.pieces.front() == "<s>");

  EncodeOptions trunc;
  trunc.max_length = 4;
  Encoding t = tok->Encode("deep learning from scratch and then some more words", trunc);
  CHECK(t.truncated);
  CHECK(t.length == 4);
  CHECK(t.ids.front() == 1);
  CHECK(t.ids.back() == 2);  // EOS survives truncation
  CHECK(t.ids[1] == plain.ids[0]);

  EncodeOptions pad;
  pad.pad_to = 16;
  Encoding p = tok->Encode("deep learning", pad);
  CHECK(p.ids.size() == 16);
  CHECK(p.attention_mask.size() == 16);
  CHECK(p.ids[p.length] == 3);
  CHECK(p.attention_mask[p.length - 1] == 1);
  CHECK(p.attention_mask[p.length] == 0);
  CHECK(p.pieces.size() == p.length);

  Encoding empty = tok->Encode("");
  CHECK(empty.ids == std::vector<int32_t>{1, 2});

  // Ids only (what embedding asks for): the same ids, mask, length and
  // truncation as the full encoding, without pieces or offsets.
  for (EncodeOptions o : {EncodeOptions{}, trunc, pad, EncodeOptions{false, 0, 0}}) {
    for (const char* text : {"deep learning from scratch and then some more words", "", "梯度下降 é ótimo"}) {
      Encoding full = tok->Encode(text, o);
      o.ids_only = true;
      Encoding lean = tok->Encode(text, o);
      o.ids_only = false;
      CHECK(lean.ids == full.ids);
      CHECK(lean.attention_mask == full.attention_mask);
      CHECK((lean.length == full.length && lean.truncated == full.truncated));
      CHECK((lean.pieces.empty() && lean.begin.empty() && lean.end.empty()));
    }
  }
}

TEST_CASE("unseen characters fall back to bytes, not to unknown", "[tokenizer]") {
  auto tok = test::TestTokenizer("unigram");
  std::vector<int32_t> ids;
  tok->EncodeIds("ꙮ ᚠᛇᚻ 𓀀", ids);
  for (int32_t id : ids) CHECK(id != tok->unk_id());
  CHECK(tok->Decode(ids) == "ꙮ ᚠᛇᚻ 𓀀");
}

TEST_CASE("bad input gets a clear error", "[tokenizer]") {
  auto tok = test::TestTokenizer("bpe");
  try {
    tok->Encode(std::string("caf\xC3", 4));
    FAIL("invalid UTF-8 accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidUtf8);
    CHECK(std::string(e.what()).find("offset 3") != std::string::npos);
  }
  CHECK_THROWS_AS(tok->Decode({-1}), Error);
  CHECK_THROWS_AS(tok->Decode({tok->vocab_size()}), Error);
  try {
    Tokenizer::FromBytes("this is not a protobuf");
    FAIL("garbage accepted as a model");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidArgument);
    CHECK(std::string(e.what()).find("/build/") == std::string::npos);
  }
  CHECK_THROWS_AS(Tokenizer::FromBytes(""), Error);
}

namespace {

// A ModelProto by hand: <unk> and one normal piece (protobuf wire format:
// ModelProto.pieces = 1, SentencePiece.piece = 1, SentencePiece.type = 3).
std::string ModelWithPiece(const std::string& piece) {
  auto message = [](const std::string& text, char type) {
    std::string sp = std::string("\x0a") + static_cast<char>(text.size()) + text + "\x18" + type;
    return std::string("\x0a") + static_cast<char>(sp.size()) + sp;
  };
  return message("<unk>", 2) + message(piece, 1);
}

}  // namespace

TEST_CASE("a model whose pieces SentencePiece cannot index is refused, not a crash", "[tokenizer]") {
  // SentencePiece indexes pieces as C strings: "\0a" is an empty key and
  // "b\0c" sorts out of order; both threw from where nothing can catch.
  for (const std::string& piece : {std::string("\0a", 2), std::string("b\0c", 3), std::string()}) {
    INFO(piece.size());
    try {
      Tokenizer::FromBytes(ModelWithPiece(piece));
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kInvalidArgument);
      CHECK(std::string(e.what()).find("piece 1") != std::string::npos);
    }
  }
  // Truncated framing is reported as such.
  const std::string whole = ModelWithPiece("ab");
  CHECK_THROWS_WITH(Tokenizer::FromBytes(whole.substr(0, whole.size() - 3)), Catch::Contains("past the end"));
  CHECK_NOTHROW(Tokenizer::FromBytes(whole));
}

TEST_CASE("a normaliser trie that steps outside itself is refused before SentencePiece follows it", "[tokenizer]") {
  // Found by the tokenizer_model fuzzer: the NFKC test model with one trie
  // unit changed; SentencePiece's normaliser read past the trie (SEGV).
  const std::string bad = test::ReadFile(std::string(VESPER_TEST_DATA_DIR) + "/fuzz/tokenizer_model/charsmap-offset.model");
  CHECK_THROWS_WITH(Tokenizer::FromBytes(bad), Catch::Contains("normalizer's character map"));
  // The real character maps pass: the NFKC test model, the default model's
  // and EmbeddingGemma's.
  for (const std::string& path : {std::string(VESPER_TEST_MODEL_DIR) + "/unigram.model",
                                 std::string(VESPER_MODELS_DIR) + "/default/tokenizer.model",
                                 std::string(VESPER_MODEL_STORE_DIR) + "/embeddinggemma-300m/tokenizer.model"}) {
    INFO(path);
    CHECK_NOTHROW(Tokenizer::FromBytes(test::ReadFile(path)));
  }
}

TEST_CASE("fingerprint identifies the vocabulary", "[tokenizer]") {
  auto a = test::TestTokenizer("unigram");
  auto b = test::TestTokenizer("bpe");
  auto a2 = test::TestTokenizer("unigram");
  CHECK(a->fingerprint() == a2->fingerprint());
  CHECK(a->fingerprint() != b->fingerprint());
  CHECK(a->fingerprint().rfind("spm-", 0) == 0);
}
