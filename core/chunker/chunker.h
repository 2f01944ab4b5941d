// Splits a knowledge-base document into passages for embedding and search.
//
// Paragraph-based and Markdown-aware: headings open sections and become each
// chunk's title trail; code fences, tables and lists (with their lead-in line)
// are kept whole; small neighbouring paragraphs share a chunk; a paragraph
// over the token budget is split at sentence boundaries with a little overlap.
// It also copes with Markdown that lost its structure on the way here:
// documents flattened onto one line with inline "## " headings, headings
// reduced to bare short lines, wrapped lines, unclosed fences.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace vesper {

// A value a site marks on a page (data-vesper-meta / data-vesper-filter):
// shown with its results; a filter also narrows a search (SearchOptions).
struct Field {
  std::string key;
  std::string value;
  bool filter = false;
  bool operator==(const Field& o) const { return key == o.key && value == o.value && filter == o.filter; }
};

struct Chunk {
  std::string id;                  // stable: derived from source, title and text
  std::vector<std::string> title;  // heading trail, outermost first
  std::string text;                // exactly source[begin, end)
  std::string source;
  uint32_t begin = 0;
  uint32_t end = 0;
  std::string language;  // DetectLanguage() of the text
  // Text about the knowledge base rather than its subject (example questions,
  // usage notes, role-play rules): under a heading the options name as meta,
  // or opening as a passage they name.
  bool meta = false;
  std::vector<Field> fields;  // its page's metadata and filters, if any
};

struct ChunkerOptions {
  size_t max_tokens = 200;     // budget per chunk
  size_t min_tokens = 40;      // paragraphs below this are merged with a neighbour
  size_t overlap_tokens = 24;  // carried over only when one paragraph is split
  // Code and tables are never split below this multiple of max_tokens.
  size_t whole_block_factor = 3;
  // Headings whose sections are meta text (matched case-insensitively, whole
  // heading, anywhere in the trail); a persona file lists them.
  std::vector<std::string> meta_headings;
  // Passages that open with one of these (matched like headings) are meta
  // text too: a document's unheaded preamble describing the agent itself.
  std::vector<std::string> meta_openings;
};

using TokenCounter = std::function<size_t(std::string_view)>;

// A model-free estimate (about one token per short word or CJK character),
// used when no tokenizer is given.
size_t ApproxTokenCount(std::string_view text);

// Throws vesper::Error(kInvalidUtf8) for invalid text. An empty or blank
// document yields no chunks.
std::vector<Chunk> ChunkDocument(std::string_view source, std::string_view text,
                                 const ChunkerOptions& options = {},
                                 const TokenCounter& count_tokens = nullptr);

}  // namespace vesper
