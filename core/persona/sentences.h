// Passages as units an answer can quote: sentences (split on Latin and CJK
// sentence ends) and list items, each classified, so that an answer quotes
// whole sentences and whole items and never a heading, a label, a question
// or a timeline row. A Markdown table reads as a list: its header a lead-in,
// each row an item ("Config files → System prompt"). Code and box drawings
// are dropped.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace vesper {

struct Sentence {
  std::string text;  // trimmed, inner white space collapsed, list marker and emphasis removed
  size_t index;      // position within its passage
  bool list_item = false;  // an item of a list (may lack a full stop)
  bool lead_in = false;    // ends with a colon: introduces what follows
  bool question = false;   // asks rather than says
  bool heading = false;    // a short line without a sentence end that is not a list item
  bool row = false;        // a timeline row ("2017      Director of AI at Tesla")
  bool complete = false;   // ends as a sentence ends
  int context = -1;        // for a list item: the index of the lead-in before its list

  // What an answer may quote on its own.
  bool quotable() const { return !lead_in && !question && !heading && !row && (complete || list_item); }
};

std::vector<Sentence> SplitSentences(std::string_view passage);

// A timeline row ("2022 Leaves Tesla (March) — 5 years ...") as an entry an
// answer may quote: the year set off by a colon, a full stop at the end
// ("2022: Leaves Tesla (March) — 5 years ...."). Not a row: unchanged.
Sentence TimelineEntry(Sentence row);

// True for lines that are code, diagrams or tables rather than prose.
bool LooksLikeCode(std::string_view line);

// True if `text` ends as a sentence ends (., !, ?, 。, ！, ？, …, or a closing
// quote or bracket after one).
bool EndsSentence(std::string_view text);

}  // namespace vesper
