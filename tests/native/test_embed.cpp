#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "core/embed/pipeline.h"
#include "core/embed/static_model.h"
#include "core/util/error.h"
#include "helpers.h"

using namespace vesper;

namespace {

// The numbers of the JSON array that follows `"key": [` at or after `from`.
std::vector<double> NumbersAfter(const std::string& json, const std::string& key, size_t& from) {
  size_t at = json.find("\"" + key + "\": [", from);
  REQUIRE(at != std::string::npos);
  size_t open = json.find('[', at), close = json.find(']', open);
  std::vector<double> out;
  std::stringstream ss(json.substr(open + 1, close - open - 1));
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::stod(item));
  from = close;
  return out;
}

}  // namespace

TEST_CASE("prompt templates", "[embed]") {
  CHECK(FormatPrompt("task: search result | query: {text}", "why cameras?") == "task: search result | query: why cameras?");
  CHECK(FormatPrompt("title: {title} | text: {text}", "body", "") == "title: none | text: body");
  CHECK(FormatPrompt("title: {title} | text: {text}", "body", "Tesla > HydraNet") == "title: Tesla > HydraNet | text: body");
  CHECK(FormatPrompt("", "plain") == "plain");
}

TEST_CASE("pooling over masked tokens", "[embed]") {
  // batch 2, seq 3, dims 2; second row has one padded position.
  const float hidden[] = {1, 2, 3, 4, 5, 6, /**/ 10, 20, 30, 40, 99, 99};
  const int32_t mask[] = {1, 1, 1, 1, 1, 0};
  float out[4];
  Pool(hidden, mask, 2, 3, 2, Pooling::kMean, out);
  CHECK(out[0] == Approx(3));
  CHECK(out[1] == Approx(4));
  CHECK(out[2] == Approx(20));  // the padded 99s are ignored
  CHECK(out[3] == Approx(30));
  Pool(hidden, mask, 2, 3, 2, Pooling::kCls, out);
  CHECK(out[2] == 10);
  Pool(hidden, mask, 2, 3, 2, Pooling::kLast, out);
  CHECK(out[2] == 30);
  CHECK(out[3] == 40);
  const int32_t empty[] = {0, 0, 0, 1, 1, 1};
  CHECK_THROWS_AS(Pool(hidden, empty, 2, 3, 2, Pooling::kMean, out), Error);
  CHECK_THROWS_AS(ParsePooling("max"), Error);
}

TEST_CASE("Matryoshka truncation renormalises", "[embed]") {
  const float in[] = {3, 4, 12, 0, /**/ 0, 0, 1, 1};
  float out[4];
  TruncateAndNormalize(in, 1, 4, 2, out);
  CHECK(out[0] == Approx(0.6f));
  CHECK(out[1] == Approx(0.8f));
  CHECK_THROWS_AS(TruncateAndNormalize(in + 4, 1, 4, 2, out), Error);  // prefix is all zeros
  CHECK_THROWS_AS(TruncateAndNormalize(in, 1, 4, 8, out), Error);
}

TEST_CASE("the core's static model matches torch on the test model", "[embed]") {
  std::string dir = std::string(VESPER_MODELS_DIR) + "/test/";
  auto model = StaticModel::FromBytes(test::ReadFile(dir + "static-tiny/model.vtab"));
  auto tok = Tokenizer::FromBytes(test::ReadFile(dir + "tokenizer.model"));
  CHECK(model->dims() == 32);
  CHECK(model->vocab() == static_cast<size_t>(tok->vocab_size()));
  std::string ref = test::ReadFile(dir + "static-tiny/reference.json");
  size_t at = 0;
  int rows = 0;
  double max_diff = 0;
  while (ref.find("\"ids\": [", at) != std::string::npos) {
    auto ids_d = NumbersAfter(ref, "ids", at);
    auto want = NumbersAfter(ref, "sentence_embedding", at);
    std::vector<int32_t> ids(ids_d.begin(), ids_d.end());
    std::vector<float> got(model->dims());
    model->Embed(ids.data(), ids.size(), got.data());
    for (size_t d = 0; d < got.size(); ++d) max_diff = std::max(max_diff, std::abs(got[d] - want[d]));
    ++rows;
  }
  CHECK(rows == 5);
  INFO("max abs diff vs torch: " << max_diff);
  CHECK(max_diff < 1e-5);

  const int32_t bad[] = {5, 100000};
  std::vector<float> out(32);
  CHECK_THROWS_AS(model->Embed(bad, 2, out.data()), Error);
  const int32_t specials[] = {0, 1, 2};
  CHECK_THROWS_AS(model->Embed(specials, 3, out.data()), Error);  // zero rows only
  CHECK_THROWS_AS(StaticModel::FromBytes("VSTM"), Error);
  CHECK_THROWS_AS(StaticModel::FromBytes("nope, not a table"), Error);
  // A shape whose size wraps a 32-bit size_t to the (empty) body: refused in
  // every build, where wasm32 used to allocate from the wrapped size.
  std::string wrapped("VSTM", 4);
  for (uint32_t v : {1u, 1u << 20, 4092u, 1u}) wrapped.append(reinterpret_cast<const char*>(&v), 4);  // version, vocab, dims, int8
  CHECK_THROWS_AS(StaticModel::FromBytes(wrapped), Error);
}

namespace {

// 3 pieces x 4 dims, dtype 1: per row an f32 scale and 4 int8 codes.
std::string TinyInt8Table() {
  std::string bytes("VSTM", 4);
  for (uint32_t v : {1u, 3u, 4u, 1u}) bytes.append(reinterpret_cast<const char*>(&v), 4);
  const float scales[] = {0.5f, 0.25f, 2.f};
  const int8_t codes[3][4] = {{1, -2, 3, 0}, {4, 4, -4, 1}, {0, 1, 0, -1}};
  for (int r = 0; r < 3; ++r) {
    bytes.append(reinterpret_cast<const char*>(&scales[r]), 4);
    bytes.append(reinterpret_cast<const char*>(codes[r]), 4);
  }
  return bytes;
}

std::string_view View(const std::vector<uint8_t>& b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

}  // namespace

TEST_CASE("an int8 table is scored from its codes: rows, dot products and embeddings as if decoded", "[embed]") {
  const std::string bytes = TinyInt8Table();
  auto model = StaticModel::FromBytes(bytes);
  std::vector<float> row(4);
  model->Row(1, row.data());
  CHECK(row == std::vector<float>{1.f, 1.f, -1.f, 0.25f});
  const float q[] = {1.f, 2.f, 3.f, 4.f};
  CHECK(model->RowDot(q, 0) == Approx(0.5f * (1 - 4 + 9)));
  CHECK(model->RowDot(q, 2) == Approx(2.f * (2 - 4)));
  // The embedding sums the decoded rows, then normalises.
  const int32_t ids[] = {0, 1};
  std::vector<float> got(4);
  model->Embed(ids, 2, got.data());
  const float sum[] = {1.5f, 0.f, 0.5f, 0.25f};
  const float norm = std::sqrt(1.5f * 1.5f + 0.5f * 0.5f + 0.25f * 0.25f);
  for (int d = 0; d < 4; ++d) CHECK(got[d] == Approx(sum[d] / norm));
  // A non-finite scale is refused.
  std::string bad = bytes;
  const float inf = std::numeric_limits<float>::infinity();
  bad.replace(20, 4, reinterpret_cast<const char*>(&inf), 4);
  CHECK_THROWS_AS(StaticModel::FromBytes(bad), Error);
}


TEST_CASE("a model loaded row by row embeds as the whole table does, and names the rows it lacks", "[embed]") {
  auto full = StaticModel::FromBytes(TinyInt8Table());
  auto sparse = StaticModel::Sparse(3, 4);
  const int32_t ids[] = {0, 2, 0};
  std::vector<float> want(4), got(4);
  full->Embed(ids, 3, want.data());
  // Nothing held: the error names the rows, never a zero vector.
  try {
    sparse->Embed(ids, 3, got.data());
    FAIL("embedded without its rows");
  } catch (const MissingRows& e) {
    CHECK(e.ids() == std::vector<int32_t>{0, 2});
    CHECK(e.code() == ErrorCode::kMissingRows);
  }
  const std::vector<uint8_t> set = full->RowSet({0, 2});
  CHECK(StaticModel::CheckRowSet(View(set)) == 2);
  sparse->AddRows(View(set));
  CHECK((sparse->Has(0) && sparse->Has(2) && !sparse->Has(1)));
  CHECK(sparse->held() == 2);
  sparse->Embed(ids, 3, got.data());
  CHECK(got == want);
  CHECK(sparse->Norm(2) == full->Norm(2));
  const int32_t one[] = {1};
  CHECK_THROWS_AS(sparse->Embed(one, 1, got.data()), MissingRows);
  CHECK(full->RowSet({}).size() == 4 + 6 * 4 + 4);
  CHECK_THROWS_AS(full->RowSet({2, 0}), Error);   // not sorted
  CHECK_THROWS_AS(sparse->RowSet({1}), Error);    // not held
  sparse->AddRows(View(set));  // again: nothing changes
  CHECK(sparse->held() == 2);
}

TEST_CASE("a damaged or foreign row set adds nothing", "[embed]") {
  auto full = StaticModel::FromBytes(TinyInt8Table());
  const std::vector<uint8_t> set = full->RowSet({1});
  auto refused = [&](std::vector<uint8_t> bytes, ErrorCode code) {
    auto sparse = StaticModel::Sparse(3, 4);
    try {
      sparse->AddRows(View(bytes));
      FAIL("row set accepted");
    } catch (const Error& e) {
      CHECK(e.code() == code);
    }
    CHECK(sparse->held() == 0);
  };
  std::vector<uint8_t> flipped = set;
  flipped.at(flipped.size() - 6) ^= 1;  // a code: the checksum no longer matches
  refused(flipped, ErrorCode::kCorruptData);
  refused(std::vector<uint8_t>(set.begin(), set.end() - 1), ErrorCode::kCorruptData);
  // A set of another table (a model rebuilt since): its id differs.
  std::string other = TinyInt8Table();
  other[24] ^= 1;
  auto rebuilt = StaticModel::FromBytes(other);
  auto mixed = StaticModel::Sparse(3, 4);
  mixed->AddRows(View(set));
  const std::vector<uint8_t> foreign = rebuilt->RowSet({0});
  CHECK_THROWS_AS(mixed->AddRows(View(foreign)), Error);
  CHECK(mixed->held() == 1);
  // Another shape.
  auto wider = StaticModel::Sparse(3, 8);
  CHECK_THROWS_AS(wider->AddRows(View(set)), Error);
  CHECK_THROWS_AS(StaticModel::Sparse(0, 4), Error);
}

TEST_CASE("a model loaded row by row takes the whole table when most rows are wanted", "[embed]") {
  const std::string table = TinyInt8Table();
  auto full = StaticModel::FromBytes(table);
  auto sparse = StaticModel::Sparse(3, 4);
  sparse->AddRows(View(full->RowSet({1})));
  sparse->AddTable(table);
  CHECK(sparse->held() == 3);
  CHECK(sparse->table_id() == full->table_id());
  std::string other = table;
  other[24] ^= 1;
  auto mixed = StaticModel::Sparse(3, 4);
  mixed->AddRows(View(full->RowSet({1})));
  CHECK_THROWS_AS(mixed->AddTable(other), Error);
  CHECK(mixed->held() == 1);
}
