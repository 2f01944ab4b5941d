// YAML front matter at the top of a Markdown document ("---" lines around
// "key: value" lines), as static-site generators write it. Only the fields
// search uses are read; the rest of the block is skipped, never indexed.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace vesper::chunking {

struct FrontMatter {
  size_t end = 0;           // bytes the block takes (0: the document has none)
  std::string title;        // the page's title, as its author named it
  std::string description;  // its summary
  std::string language;     // "lang"/"language", lower case, region dropped ("pt-BR" -> "pt")
};

// Reads the block that opens `text` (after an optional byte-order mark). A
// block is read only when it closes ("---" or "...") within kMaxFrontMatterBytes;
// otherwise the document has none and nothing is skipped.
FrontMatter ReadFrontMatter(std::string_view text);

}  // namespace vesper::chunking
