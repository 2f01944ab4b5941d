// Replays the fuzz regression corpus (tests/data/fuzz/INDEX: one "target
// path" per line) through the same code the libFuzzer targets run
// (tests/fuzz/targets.h), natively and in WASM: every input that once
// crashed, hung or tripped a sanitizer must now end in a clear error or a
// normal return.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "helpers.h"
#include "tests/fuzz/targets.h"

using namespace vesper;

TEST_CASE("the fuzz regression corpus replays without a fault", "[fuzz]") {
  std::ifstream index(std::string(VESPER_TEST_DATA_DIR) + "/fuzz/INDEX");
  REQUIRE(index.good());
  size_t replayed = 0;
  std::string line;
  while (std::getline(index, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string target, path;
    fields >> target >> path;
    INFO(target << " " << path);
    const fuzz::Target* t = fuzz::FindTarget(target.c_str());
    REQUIRE(t);
    const std::string bytes = test::ReadFile(std::string(VESPER_TEST_DATA_DIR) + "/fuzz/" + path);
    t->run(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    ++replayed;
  }
  CHECK(replayed >= fuzz::kTargetCount);  // at least one input per target
}

TEST_CASE("every fuzz target takes empty, tiny and seed inputs", "[fuzz]") {
  const std::string seed = test::Seeds()[2].text;
  for (size_t i = 0; i < fuzz::kTargetCount; ++i) {
    INFO(fuzz::kTargets[i].name);
    for (const std::string& input : {std::string(), std::string(1, '\0'), std::string("\xFF\xFE"), seed}) {
      fuzz::kTargets[i].run(reinterpret_cast<const uint8_t*>(input.data()), input.size());
    }
  }
}
