// First pass of the chunker: the document as classified logical lines.
// Flattened Markdown (a whole document on one line with inline "## "
// headings, lists and tables) is unfolded here into the lines it once had,
// so everything after this sees ordinary Markdown structure. Lines are spans
// into the source, so byte offsets survive the unfolding.
#pragma once
#include <cstddef>
#include <string_view>
#include <vector>

namespace vesper::chunking {

enum class LineKind { kBlank, kFence, kHeading, kTableRow, kListItem, kQuote, kText };

struct Line {
  size_t begin = 0, end = 0;  // trimmed span in the source
  LineKind kind = LineKind::kBlank;
  int level = 0;                          // headings: 1-6
  size_t title_begin = 0, title_end = 0;  // headings: the text after the markers
};

std::vector<Line> ScanLines(std::string_view text);

// True when the span ends a sentence (., !, ?, CJK full stops), looking past
// closing quotes, brackets and emphasis markers.
bool EndsSentence(std::string_view s);
// The span's last meaningful character is ':' or '：' (a lead-in line).
bool EndsWithColon(std::string_view s);

}  // namespace vesper::chunking
