// The chunker's heading trails for every section of the seed documents,
// against hand-checked outlines (tests/data/trails/*.outline: one heading a
// line, two spaces of indent per level, '#' lines are comments explaining
// the judgment calls). Trails are embedded into every passage's vector, so a
// wrong trail is a wrong vector.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "core/chunker/chunker.h"
#include "helpers.h"

namespace vesper {
namespace {

using Trail = std::vector<std::string>;

// Every heading of an outline as its full trail, in document order.
std::vector<Trail> ReadOutline(const std::string& text) {
  std::vector<Trail> trails;
  Trail stack;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos || line[indent] == '#') continue;
    size_t level = indent / 2;
    REQUIRE(level <= stack.size());  // an outline never skips a level
    stack.resize(level);
    size_t end = line.find_last_not_of(" \r");
    stack.push_back(line.substr(indent, end + 1 - indent));
    trails.push_back(stack);
  }
  return trails;
}

std::string Show(const Trail& t) {
  std::string s;
  for (const auto& h : t) s += (s.empty() ? "" : " > ") + h;
  return s.empty() ? "(no trail)" : s;
}

TEST_CASE("every seed section gets the hand-checked heading trail", "[chunker][trails]") {
  for (const auto& seed : test::Seeds()) {
    std::string base = seed.name.substr(0, seed.name.size() - 4);
    std::vector<Trail> expected = ReadOutline(test::ReadFile(std::string(VESPER_TEST_DATA_DIR) + "/trails/" + base + ".outline"));
    std::vector<Chunk> chunks = ChunkDocument(seed.name, seed.text);
    INFO(seed.name);
    // No chunk sits under a heading the outline does not have, or in the wrong place.
    size_t last = 0;
    for (const Chunk& c : chunks) {
      if (c.title.empty()) continue;
      INFO("chunk trail " << Show(c.title) << " at byte " << c.begin);
      REQUIRE(std::find(expected.begin(), expected.end(), c.title) != expected.end());
      // Sections come in the outline's order (a heading may occur twice: take the next one).
      auto at = std::find(expected.begin() + static_cast<std::ptrdiff_t>(last), expected.end(), c.title);
      CHECK(at != expected.end());
      if (at != expected.end()) last = static_cast<size_t>(at - expected.begin());
    }
    // Every heading of the outline heads some chunk (itself or through a sub-heading).
    for (const Trail& e : expected) {
      bool found = std::any_of(chunks.begin(), chunks.end(), [&](const Chunk& c) {
        return c.title.size() >= e.size() && std::equal(e.begin(), e.end(), c.title.begin());
      });
      INFO("heading " << Show(e));
      CHECK(found);
    }
  }
}

}  // namespace
}  // namespace vesper
