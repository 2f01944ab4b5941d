#include "core/chunker/chunker.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <unordered_map>
#include <unordered_set>

#include "core/chunker/front_matter.h"
#include "core/chunker/lines.h"
#include "core/text/language.h"
#include "core/util/checksum.h"
#include "core/util/error.h"
#include "core/util/utf8.h"

namespace vesper {

using chunking::Line;
using chunking::LineKind;

// The first window Fits counts, in bytes per token of the budget; it doubles
// until the span overflows or is covered. Small, because text that
// tokenizes densely (a 5 MB line of letters and digits: about one token per
// byte) overflows within a window this size, and every window counted costs
// its whole length; prose (4-5 bytes a token) needs two doublings.
constexpr size_t kWindowBytesPerToken = 2;
// Spans up to this many bytes per token of budget are counted directly
// (a piece of prose runs 3-6 bytes per token).
constexpr size_t kDirectCountBytesPerToken = 8;
// Cut candidates at every code point (SplitAt's finest level).
constexpr int kCodePointLevel = 3;
// At code-point cuts, a rest over this many times the bytes a budget's
// tokens took in the last piece counted is taken not to fit without a count.
constexpr size_t kClearlyOverFactor = 4;
// At code-point cuts, cuts and overlaps are aimed at this share of the
// bytes the last count's ratio gives, so that the first guess mostly fits.
constexpr size_t kAimPercent = 95;

namespace {

enum class BlockKind { kParagraph, kList, kTable, kCode };

struct Block {
  size_t begin, end;
  BlockKind kind;
  std::vector<size_t> line_starts;  // starts of lines after the first: preferred cuts
  size_t tokens = 0;
};

// Title Case: most longer words capitalised ("How Do I Start Learning Deep
// Learning?"), as headings are written and sentences are not.
bool IsTitleCase(std::string_view s) {
  size_t words = 0, capitalised = 0;
  for (size_t i = 0; i < s.size();) {
    size_t j = s.find(' ', i);
    if (j == std::string_view::npos) j = s.size();
    std::string_view w = s.substr(i, j - i);
    if (w.size() >= 4) {
      ++words;
      if (std::isupper(static_cast<unsigned char>(w[0]))) ++capitalised;
    }
    i = j + 1;
  }
  return words >= 2 && capitalised * 4 >= words * 3;
}

// A short, isolated line with no closing punctuation: what a Markdown heading
// becomes when its "## " is lost. A Title Case question heads its answer.
bool LooksLikeBareHeading(std::string_view s) {
  if (s.size() > 80 || s.empty()) return false;
  size_t words = 1 + std::count(s.begin(), s.end(), ' ');
  if (words > 12) return false;
  // Code that lost its fence ("dw = dloss_do * do_dn # chain rule") is not a heading.
  if (s.find_first_of("=#{};`") != std::string_view::npos) return false;
  if (std::count(s.begin(), s.end(), '(') > std::count(s.begin(), s.end(), ')')) return false;  // "def tanh(self"
  if (s.back() == '?' && IsTitleCase(s)) return true;
  if (chunking::EndsSentence(s) || chunking::EndsWithColon(s)) return false;
  char last = s.back();
  return last != ',' && last != ';';
}

// Case- and accent-insensitive form of a heading, for matching meta headings.
std::string Folded(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) utf8::Append(out, utf8::FoldLatin(utf8::Next(s, i)));
  size_t b = out.find_first_not_of(" \t"), e = out.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : out.substr(b, e - b + 1);
}

// The folded form of s's opening, at least n bytes of it when s has them
// (folding only what a comparison needs: a passage may be long).
std::string FoldedPrefix(std::string_view s, size_t n) {
  std::string out;
  size_t i = s.find_first_not_of(" \t\n");
  if (i == std::string_view::npos) return out;
  while (i < s.size() && out.size() < n) utf8::Append(out, utf8::FoldLatin(utf8::Next(s, i)));
  return out.substr(0, n);
}

// Lines left behind by a broken export rather than written by anyone.
bool IsExportArtifact(std::string_view s) {
  return s == "undefined" || s == "null" || s == "NaN" || s == "[object Object]";
}

struct Heading {
  int level;
  size_t begin, end;  // the whole heading line
  std::string title;
  bool had_content = false;
};

class DocumentChunker {
 public:
  DocumentChunker(std::string_view source, std::string_view text, const ChunkerOptions& options,
                  const TokenCounter& count)
      : source_(source), text_(text), opt_(options), count_(count ? count : TokenCounter(ApproxTokenCount)) {
    // Folded once here, not for every passage the document yields.
    for (const auto& m : opt_.meta_headings) {
      if (!m.empty()) meta_headings_.push_back(Folded(m));
    }
    for (const auto& m : opt_.meta_openings) {
      if (std::string f = Folded(m); !f.empty()) meta_openings_.push_back(std::move(f));
    }
  }

  std::vector<Chunk> Run() {
    const chunking::FrontMatter front = chunking::ReadFrontMatter(text_);
    doc_language_ = front.language.empty() ? DetectLanguage(text_.substr(front.end)) : front.language;
    ScanBody(front.end);
    OpenPageTitle(front);
    PairFences();
    LearnMarkedLevels();
    for (size_t i = 0; i < lines_.size();) i = Consume(i);
    PopHeadings(0);
    Flush();
    return std::move(chunks_);
  }

 private:
  // The document's lines after its front matter (offsets stay the source's).
  void ScanBody(size_t from) {
    lines_ = chunking::ScanLines(text_.substr(from));
    for (Line& l : lines_) {
      l.begin += from;
      l.end += from;
      l.title_begin += from;
      l.title_end += from;
    }
  }

  // The front matter's title (with its description, a summary the author
  // wrote) heads every passage's trail: it names what the page is about even
  // where the body's headings are generic ("Description", "Synopsis").
  void OpenPageTitle(const chunking::FrontMatter& front) {
    if (front.title.empty()) return;
    page_title_ = front.title;
    std::string root = front.title;
    if (!front.description.empty() && Folded(front.description) != Folded(front.title)) root += " — " + front.description;
    headings_.push_back(Heading{0, front.end, front.end, std::move(root), true});
  }

  // Fences pair in order. A closing fence has no info string, so "```python"
  // while a fence is open means the open one was never closed: it becomes
  // plain text, as does a last fence with no partner. A broken fence can
  // then never swallow the rest of the document.
  void PairFences() {
    partner_.assign(lines_.size(), SIZE_MAX);
    size_t open = SIZE_MAX;
    for (size_t i = 0; i < lines_.size(); ++i) {
      if (lines_[i].kind != LineKind::kFence) continue;
      bool has_info = lines_[i].end - lines_[i].begin > 3;
      if (open != SIZE_MAX && has_info) {
        lines_[open].kind = LineKind::kText;
        open = SIZE_MAX;
      }
      if (open == SIZE_MAX) {
        open = i;
      } else {
        partner_[open] = i;
        open = SIZE_MAX;
      }
    }
    if (open != SIZE_MAX) lines_[open].kind = LineKind::kText;
  }

  std::string_view Span(size_t b, size_t e) const { return text_.substr(b, e - b); }
  std::string_view LineText(size_t i) const { return Span(lines_[i].begin, lines_[i].end); }
  bool Blank(size_t i) const { return i >= lines_.size() || lines_[i].kind == LineKind::kBlank; }

  bool IsolatedBareLine(size_t i) const {
    return i < lines_.size() && lines_[i].kind == LineKind::kText && (i == 0 || Blank(i - 1)) && Blank(i + 1) &&
           LooksLikeBareHeading(LineText(i)) && !IsExportArtifact(LineText(i));
  }

  size_t NextNonBlank(size_t i) const {
    while (i < lines_.size() && Blank(i)) ++i;
    return i;
  }

  // A bare line is taken for a heading when real content follows it, or
  // when the bare heading right after it is its sub-heading (a title over
  // "Overview", "Section 5" over "5.1"); a run of bare lines that are not
  // parent and child (form labels, the end of the reference page) is text.
  bool IsBareHeading(size_t i) const {
    if (!IsolatedBareLine(i)) return false;
    size_t next = NextNonBlank(i + 1);
    if (next >= lines_.size() || lines_[next].kind == LineKind::kHeading) return false;
    if (!IsolatedBareLine(next)) return true;
    size_t after = NextNonBlank(next + 1);
    bool next_heads_content = after < lines_.size() && !IsolatedBareLine(after) && lines_[after].kind != LineKind::kHeading;
    return next_heads_content && BareHeadingLevel(i, nullptr) < BareHeadingLevel(next, &i);
  }

  // A heading line squeezed between lines of its own (no blank line on either
  // side, not cut from a flattened line) is a code comment whose fence was
  // lost when it is "# " (a document's title stands apart from what
  // surrounds it) or when it or the line after it reads as code
  // ("## Forward Pass" over "x, w, b = 2.0, -3.0").
  bool IsCodeComment(size_t i) const {
    if (i == 0 || Blank(i - 1) || i + 1 >= lines_.size() || Blank(i + 1)) return false;
    auto newline_between = [&](size_t a, size_t b) {
      return Span(lines_[a].end, lines_[b].begin).find('\n') != std::string_view::npos;
    };
    if (!newline_between(i - 1, i) || !newline_between(i, i + 1)) return false;
    return lines_[i].level == 1 || LooksLikeCode(LineText(i)) || LooksLikeCode(LineText(i + 1));
  }

  static bool LooksLikeCode(std::string_view s) {
    if (s.find(" = ") != std::string_view::npos) return true;
    for (const char* k : {"import ", "from ", "def ", "class ", "return ", "print("}) {
      if (s.rfind(k, 0) == 0) return true;
    }
    return false;
  }

  // The first word of a heading ("Imported:", "Problem:", "Section"), which
  // headings of one kind share.
  static std::string_view FirstWord(std::string_view title) { return title.substr(0, title.find(' ')); }

  // Where the document kept some Markdown markers, bare headings of the same
  // kind ("Imported: ..." bare and "#### Imported: ...") take their level.
  void LearnMarkedLevels() {
    for (size_t i = 0; i < lines_.size(); ++i) {
      if (lines_[i].kind != LineKind::kHeading || IsCodeComment(i)) continue;
      std::string_view title = Span(lines_[i].title_begin, lines_[i].title_end);
      marked_levels_.emplace(std::string(FirstWord(title)), lines_[i].level);
    }
  }

  // "ANDREJ KARPATHY — FULL SKILL v2.0": nearly every Latin letter upper case.
  static bool AllCaps(std::string_view s) {
    size_t upper = 0, lower = 0;
    for (char c : s) {
      upper += std::isupper(static_cast<unsigned char>(c)) != 0;
      lower += std::islower(static_cast<unsigned char>(c)) != 0;
    }
    return upper >= 4 && lower * 10 <= upper;
  }

  // Whether a heading names part n as "<word> n ..." ("Section 5 —",
  // "Seção 5 —", "Part 5:", "Chapter 5"): one word, a space, the number.
  static bool NamesPart(std::string_view t, std::string_view n) {
    const size_t space = t.find(' ');
    if (space == 0 || space == std::string_view::npos || t.substr(space + 1, n.size()) != n) return false;
    for (size_t i = 0; i < space; ++i) {
      if (std::isdigit(static_cast<unsigned char>(t[i])) || std::ispunct(static_cast<unsigned char>(t[i]))) return false;
    }
    const size_t after = space + 1 + n.size();
    return after == t.size() || !std::isdigit(static_cast<unsigned char>(t[after]));
  }

  // "N.M ..." is a section of part N: it nests under an open (or, looking
  // ahead, the given) part heading ("Section N ...": NamesPart).
  bool InOpenPart(std::string_view s, const size_t* parent_line) const {
    size_t q = 0;
    while (q < s.size() && std::isdigit(static_cast<unsigned char>(s[q]))) ++q;
    if (q == 0 || q + 1 >= s.size() || s[q] != '.' || !std::isdigit(static_cast<unsigned char>(s[q + 1]))) return false;
    const std::string n(s.substr(0, q));
    auto is_part = [&](std::string_view t) { return NamesPart(t, n); };
    if (parent_line) return is_part(LineText(*parent_line));
    for (const Heading& h : headings_) {
      if (h.level == 2 && is_part(h.title)) return true;
    }
    return false;
  }

  // Bare headings carry no level, only hints: a document's first line and an
  // ALL-CAPS line are titles (1); a kind the document also marked takes that
  // level; "N.M ..." inside its "Section N" is 3; anything else is 2, so a
  // numbered section whose part heading was lost does not nest under an
  // unrelated heading. parent_line: the bare heading assumed open just before.
  int BareHeadingLevel(size_t line, const size_t* parent_line) const {
    std::string_view s = LineText(line);
    if (line == 0 || AllCaps(s)) return 1;
    auto marked = marked_levels_.find(std::string(FirstWord(s)));
    if (marked != marked_levels_.end()) return marked->second;
    if (InOpenPart(s, parent_line)) return 3;
    auto kind = item_levels_.find(Kind(s));
    if (kind != item_levels_.end()) return kind->second;
    // "Examples" right over "Example 1: ...": a heading that names its items' kind is their parent.
    const Heading* open = headings_.empty() ? nullptr : &headings_.back();
    std::string_view parent = parent_line ? LineText(*parent_line) : (open && !open->had_content ? std::string_view(open->title) : "");
    if (!parent.empty() && Kind(parent) == Kind(s)) return (parent_line ? 2 : open->level) + 1;
    return 2;
  }

  // A heading's first word, lower case, without a plural "s" or a colon:
  // "Examples" and "Example 1:" are of one kind.
  static std::string Kind(std::string_view title) {
    std::string w(FirstWord(title));
    for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    while (!w.empty() && (w.back() == ':' || w.back() == 's')) w.pop_back();
    return w;
  }

  size_t Consume(size_t i) {
    const Line& line = lines_[i];
    switch (line.kind) {
      case LineKind::kBlank:
        return i + 1;
      case LineKind::kFence: {
        size_t j = partner_[i];
        Block b{line.begin, lines_[j].end, BlockKind::kCode, {}};
        for (size_t k = i + 1; k <= j; ++k) if (!Blank(k)) b.line_starts.push_back(lines_[k].begin);
        Add(std::move(b));
        return j + 1;
      }
      case LineKind::kHeading:
        if (IsCodeComment(i)) return ConsumeText(i);
        OpenHeading(line.level, line.begin, line.end, std::string(Span(line.title_begin, line.title_end)));
        return i + 1;
      case LineKind::kTableRow: {
        Block b{line.begin, line.end, BlockKind::kTable, {}};
        size_t j = i + 1;
        for (; j < lines_.size() && lines_[j].kind == LineKind::kTableRow; ++j) {
          b.line_starts.push_back(lines_[j].begin);
          b.end = lines_[j].end;
        }
        Add(std::move(b));
        return j;
      }
      default:
        if (IsBareHeading(i)) {
          int level = BareHeadingLevel(i, nullptr);
          // Items under a kind heading ("Example 2: ...") keep the level the first one got.
          if (level > 2 && !marked_levels_.count(std::string(FirstWord(LineText(i))))) item_levels_.emplace(Kind(LineText(i)), level);
          OpenHeading(level, line.begin, line.end, std::string(LineText(i)));
          return i + 1;
        }
        if (IsExportArtifact(LineText(i)) && (i == 0 || Blank(i - 1)) && Blank(i + 1)) return i + 1;
        return ConsumeText(i);
    }
  }

  // A run of text, list and quote lines up to the next blank line or
  // structural line, cut into paragraphs and lists.
  size_t ConsumeText(size_t i) {
    Block cur{0, 0, BlockKind::kParagraph, {}};
    bool open = false;
    auto close = [&] {
      if (open) Add(std::move(cur));
      open = false;
    };
    size_t j = i;
    for (; j < lines_.size(); ++j) {
      const Line& line = lines_[j];
      bool heading_comment = line.kind == LineKind::kHeading && IsCodeComment(j);
      bool textual = line.kind == LineKind::kText || line.kind == LineKind::kListItem ||
                     line.kind == LineKind::kQuote || heading_comment;
      if (!textual || (j > i && IsBareHeading(j))) break;
      BlockKind kind = line.kind == LineKind::kListItem ? BlockKind::kList : BlockKind::kParagraph;
      // A hard-wrapped list item goes on on the next line ("...just two" /
      // "cameras) for tens of thousands of years."): the item's continuation.
      if (open && cur.kind == BlockKind::kList && kind == BlockKind::kParagraph && !chunking::EndsSentence(LineText(j - 1))) {
        kind = BlockKind::kList;
      }
      if (open && cur.kind != kind) close();
      if (!open) {
        cur = Block{line.begin, line.end, kind, {}};
        open = true;
      } else {
        cur.line_starts.push_back(line.begin);
        cur.end = line.end;
      }
      // A paragraph ends with its sentence; wrapped lines and short runs
      // (timelines, code whose fence was lost) keep going.
      std::string_view s = LineText(j);
      bool next_is_long = j + 1 < lines_.size() && lines_[j + 1].end - lines_[j + 1].begin >= 200;
      if (kind == BlockKind::kParagraph && (chunking::EndsSentence(s) || s.size() >= 200 || next_is_long)) close();
    }
    close();
    return j;
  }

  void OpenHeading(int level, size_t begin, size_t end, std::string title) {
    PopHeadings(level);
    headings_.push_back(Heading{level, begin, end, std::move(title)});
  }

  // A heading that closes with nothing under it is content of its parent,
  // so that no text of the document is lost.
  void PopHeadings(int level) {
    while (!headings_.empty() && headings_.back().level >= level) {
      Heading h = headings_.back();
      headings_.pop_back();
      if (!h.had_content) Add(Block{h.begin, h.end, BlockKind::kParagraph, {}});
    }
  }

  std::vector<std::string> Trail() const {
    std::vector<std::string> trail;
    for (const auto& h : headings_) {
      // The body's own "# Title" repeats the front matter's: said once.
      if (h.level > 0 && !page_title_.empty() && Folded(h.title) == Folded(page_title_)) continue;
      trail.push_back(h.title);
    }
    return trail;
  }

  void Add(Block b) {
    // A lead-in line ("The implications:") stays with what it introduces.
    if (!pending_.empty() && pending_trail_ == Trail()) {
      Block& prev = pending_.back();
      if (prev.kind == BlockKind::kParagraph && prev.line_starts.empty() &&
          chunking::EndsWithColon(Span(prev.begin, prev.end)) && b.kind != BlockKind::kParagraph) {
        b.line_starts.insert(b.line_starts.begin(), b.begin);
        b.begin = prev.begin;
        pending_.pop_back();
      }
    }
    for (auto& h : headings_) h.had_content = true;
    if (Trail() != pending_trail_) Flush();
    pending_trail_ = Trail();
    // Counted only as far as any decision about it looks: a block past this
    // is split whatever its size, and counting a 5 MB line whole cost seconds.
    b.tokens = CountUpTo(b.begin, b.end, opt_.max_tokens * opt_.whole_block_factor);
    pending_.push_back(std::move(b));
  }

  // Packs the section's blocks into chunks: one paragraph per chunk, small
  // neighbours together, oversized blocks split.
  void Flush() {
    size_t cur_begin = 0, cur_end = 0, cur_tokens = 0;
    bool open = false;
    auto emit_current = [&] {
      if (open) Emit(cur_begin, cur_end);
      open = false;
    };
    for (const Block& b : pending_) {
      if (b.tokens > opt_.max_tokens) {
        emit_current();
        for (auto [s, e] : SplitBlock(b)) Emit(s, e);
        continue;
      }
      if (open && (cur_tokens < opt_.min_tokens || b.tokens < opt_.min_tokens) &&
          cur_tokens + b.tokens <= opt_.max_tokens) {
        cur_end = b.end;
        cur_tokens += b.tokens;
        continue;
      }
      emit_current();
      cur_begin = b.begin;
      cur_end = b.end;
      cur_tokens = b.tokens;
      open = true;
    }
    emit_current();
    pending_.clear();
  }

  using Spans = std::vector<std::pair<size_t, size_t>>;

  Spans SplitBlock(const Block& b) {
    if ((b.kind == BlockKind::kCode || b.kind == BlockKind::kTable) &&
        b.tokens <= opt_.max_tokens * opt_.whole_block_factor) {
      return {{b.begin, b.end}};
    }
    Spans out;
    size_t overlap = b.kind == BlockKind::kParagraph ? opt_.overlap_tokens : 0;
    SplitAt(b.begin, b.end, 0, LineCuts(b), overlap, out);
    return out;
  }

  // The line starts of a block worth cutting at: in prose, only where the
  // line before ended a sentence or a new list item begins, never inside a
  // hard-wrapped sentence.
  std::vector<size_t> LineCuts(const Block& b) const {
    if (b.kind == BlockKind::kCode || b.kind == BlockKind::kTable) return b.line_starts;
    std::vector<size_t> cuts;
    size_t prev_begin = b.begin;
    for (size_t start : b.line_starts) {
      std::string_view before = Span(prev_begin, start);
      while (!before.empty() && (before.back() == '\n' || before.back() == ' ' || before.back() == '\r')) before.remove_suffix(1);
      std::string_view line = Span(start, std::min(b.end, start + 8));
      bool item = !line.empty() && (line[0] == '-' || line[0] == '*' || std::isdigit(static_cast<unsigned char>(line[0])) ||
                                    line.rfind("\xE2\x80\xA2", 0) == 0);
      if (item || chunking::EndsSentence(before) || chunking::EndsWithColon(before)) cuts.push_back(start);
      prev_begin = start;
    }
    return cuts;
  }

  // Cut candidates inside [b, e) at a given fineness: 1 sentences, 2 words, 3 code points.
  std::vector<size_t> Cuts(size_t b, size_t e, int level) const {
    std::vector<size_t> cuts;
    for (size_t i = b; i < e;) {
      char32_t cp = utf8::Next(text_, i);
      if (i >= e) break;
      bool cut = false;
      if (level == 1) {
        cut = ((cp == '.' || cp == '!' || cp == '?' || cp == ';') && text_[i] == ' ') || cp == 0x3002 ||
              cp == 0xFF01 || cp == 0xFF1F || cp == 0xFF1B;
      } else if (level == 2) {
        cut = utf8::IsSpace(cp) || utf8::IsCjk(cp);
      } else {
        cut = true;
      }
      if (cut) cuts.push_back(i);
    }
    return cuts;
  }

  // The counter's tokens in [b, e); each exact count also teaches the
  // estimate (Likely) this document's ratio of real to approximate tokens.
  size_t Tokens(size_t b, size_t e) const {
    const size_t n = count_(Span(b, e));
    counted_ += n;
    counted_bytes_ += e - b;
    if (n >= opt_.max_tokens / 2) recent_ = {e - b, n};  // a piece's ratio, not a short overlap's
    approximated_ += ApproxTokenCount(Span(b, e));
    return n;
  }

  // How many bytes of this document's text held `tokens` tokens on average
  // in the spans counted so far (0 before any).
  size_t BytesForTokens(size_t tokens) const {
    return counted_ ? static_cast<size_t>(static_cast<double>(counted_bytes_) / static_cast<double>(counted_) * tokens) : 0;
  }
  // The same from the last piece-sized span counted alone: in a run of code
  // points after prose, the run's own ratio (the document's is still its
  // prose's).
  size_t RecentBytesForTokens(size_t tokens) const {
    return recent_.second ? static_cast<size_t>(static_cast<double>(recent_.first) / static_cast<double>(recent_.second) * tokens)
                          : BytesForTokens(tokens);
  }

  // Whether [b, e) probably fits, from the cheap approximate count scaled by
  // what exact counts gave so far: where to look, not the answer.
  bool Likely(size_t b, size_t e, size_t budget) const {
    if (e - b <= budget) return true;
    const double ratio = approximated_ ? static_cast<double>(counted_) / static_cast<double>(approximated_) : 1.0;
    return static_cast<double>(ApproxTokenCount(Span(b, e))) * ratio <= static_cast<double>(budget);
  }

  // Whether [b, e) fits in `budget` tokens, counting no more than needed: a
  // token covers at least one byte, so a short span fits outright.
  bool Fits(size_t b, size_t e, size_t budget) const {
    if (e - b <= budget) return true;
    return CountUpTo(b, e, budget) <= budget;
  }

  // The tokens of [b, e) when at most `limit`, else some number above it,
  // counting no more than needed: a long span that already overflows within
  // its first bytes is not counted whole. Keeps splitting a megabyte-long
  // line linear rather than quadratic.
  size_t CountUpTo(size_t b, size_t e, size_t limit) const {
    // A span of a piece's size or so is counted once, whole: doubling windows
    // would count it two or three times over.
    if (e - b <= limit * kDirectCountBytesPerToken) return Tokens(b, e);
    // Count a window that doubles until it overflows or covers the span, so
    // even text of very long tokens is counted a bounded number of times.
    // It starts a little past where this document's text so far reached the
    // limit, so it mostly overflows at once.
    for (size_t bytes = std::max(limit * kWindowBytesPerToken, BytesForTokens(limit * 5 / 4));; bytes *= 2) {
      size_t end = bytes >= e - b ? e : b + bytes;
      while (end < e && (static_cast<unsigned char>(text_[end]) & 0xC0) == 0x80) ++end;  // a character boundary
      const size_t n = Tokens(b, end);
      if (n > limit || end == e) return n;
    }
  }

  // The first element of [first, last) for which pred (true, then false
  // along the range) is false: galloping from first, then bisecting. Costs
  // O(log d) calls where d is the answer's distance from first, not
  // O(log(last - first)): a short piece in a megabyte line is found with a
  // few short counts.
  template <typename It, typename Pred>
  static It GallopPartition(It first, It last, Pred pred) {
    It lo = first;
    for (typename std::iterator_traits<It>::difference_type step = 1; lo != last; step *= 2) {
      It probe = last - lo > step ? lo + step : last;
      if (probe == last) return std::partition_point(lo, probe, pred);
      // *prev(probe) is known false: the answer is in [lo, prev(probe)], and prev(probe) is not asked again.
      if (!pred(*std::prev(probe))) return std::partition_point(lo, std::prev(probe), pred);
      lo = probe;
    }
    return last;
  }

  // Greedy: the longest prefix that fits, cut at the given candidates (found
  // by galloping and bisection: fitting is monotone in the cut); a piece with
  // no candidate that fits goes down a level.
  void SplitAt(size_t b, size_t e, int level, const std::vector<size_t>& cuts, size_t overlap, Spans& out) {
    // At code-point cuts (a run with no spaces, sentence ends or CJK), the
    // text is not prose: whether the rest fits is asked only where the
    // estimate leaves it open, and a cut or an overlap that fits is good
    // enough (the longest ones cost seven more counts a piece, nine in all:
    // a 5 MB line took 10.8 s).
    const bool code_points = level >= kCodePointLevel;
    size_t pos = b;
    while (pos < e) {
      // Aimed a little short at code points, so that the first cut tried mostly fits (one count).
      const size_t budget_bytes = RecentBytesForTokens(opt_.max_tokens) * kAimPercent / 100;  // 0 before any count
      const bool maybe_fits = !code_points || budget_bytes == 0 || e - pos <= kClearlyOverFactor * budget_bytes;
      if (level > kCodePointLevel || (maybe_fits && Fits(pos, e, opt_.max_tokens))) {
        out.push_back({pos, e});
        return;
      }
      auto first = std::upper_bound(cuts.begin(), cuts.end(), pos);
      auto last = std::lower_bound(first, cuts.end(), e);
      auto fits_from_pos = [&](size_t cut) { return Fits(pos, cut, opt_.max_tokens); };
      // The first candidate that does not fit; the one before it is the best.
      // Found where the estimate says, then moved by exact counts until it is
      // exactly that (fitting is monotone in the cut): the same cut as an
      // exact search, with a couple of real counts instead of a dozen (a
      // real tokenizer costs ~100x the estimate: a 5 MB line took 10 s).
      // At code points the word-based estimate means nothing (there are no
      // words) and costs a scan a probe: the last piece's bytes per token say.
      auto likely = [&](size_t cut) {
        return code_points && budget_bytes > 0 ? cut - pos <= budget_bytes : Likely(pos, cut, opt_.max_tokens);
      };
      auto over = GallopPartition(first, last, likely);
      // Once it moved back, *over is known not to fit: no second count of it.
      // At code points, a cut that fits is good enough, and an estimate that
      // overshot (the document's ratio was its prose's) is left by galloping:
      // a few counts however far off it was.
      auto misses = [&](size_t cut) { return !fits_from_pos(cut); };
      const bool moved = over != first && misses(*std::prev(over));
      if (moved && code_points) {
        over = GallopPartition(std::make_reverse_iterator(std::prev(over)), std::make_reverse_iterator(first), misses).base();
      } else if (moved) {
        for (--over; over != first && misses(*std::prev(over));) --over;
      } else if (!code_points) {
        while (over != last && fits_from_pos(*over)) ++over;
      }
      if (over == first) {
        size_t stop = first != last ? *first : e;
        int finer = level + 1;
        SplitAt(pos, stop, finer, Cuts(pos, stop, finer), finer > 0 ? opt_.overlap_tokens : overlap, out);
        pos = stop;
        continue;
      }
      auto best = std::prev(over);
      // A piece that ends where the last one did holds nothing new: the
      // overlap walked back over cuts that all fit in it while what follows
      // the cut does not (a short line before a long run). Emitting it would
      // repeat the same piece once per cut (a 6 kB fuzz input gave 1,450
      // chunks, mostly one span over and over): resume past the last piece.
      if (!out.empty() && *best <= out.back().second) {
        pos = out.back().second;
        continue;
      }
      out.push_back({pos, *best});
      pos = overlap > 0 ? OverlapStart(first, best, overlap, code_points) : *best;
    }
  }

  using CutIt = std::vector<size_t>::const_iterator;

  // Where the piece after one ending at *best starts: a little earlier, at
  // the earliest cut in [first, best] whose tail still fits in the overlap
  // budget (or *best when none does). Found where this document's bytes per
  // token put it, then moved by exact counts, as the cut in SplitAt (a
  // search by exact counts cost five or more per piece; the word-based
  // estimate is too coarse here).
  size_t OverlapStart(CutIt first, CutIt best, size_t overlap, bool code_points) const {
    auto tail_fits = [&](size_t cut) { return Fits(cut, *best, overlap); };
    const size_t back = code_points ? RecentBytesForTokens(overlap) * kAimPercent / 100 : BytesForTokens(overlap);
    auto tail = std::lower_bound(first, best, *best - std::min(back, *best));
    auto too_long = [&](size_t cut) { return !tail_fits(cut); };
    const bool moved = tail != best && too_long(*tail);
    if (moved && code_points) {
      tail = GallopPartition(std::next(tail), best, too_long);
    } else if (moved) {
      for (++tail; tail != best && too_long(*tail);) ++tail;
    } else if (!code_points) {
      while (tail != first && tail_fits(*std::prev(tail))) --tail;
    }
    return *tail;
  }

  void Emit(size_t b, size_t e) {
    // ASCII white space only: bytes like 0xA0 occur inside UTF-8 sequences.
    auto space = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; };
    while (b < e && space(text_[b])) ++b;
    while (e > b && space(text_[e - 1])) --e;
    if (e <= b) return;
    Chunk c;
    c.title = pending_trail_;
    c.text = std::string(Span(b, e));
    c.source = std::string(source_);
    c.begin = static_cast<uint32_t>(b);
    c.end = static_cast<uint32_t>(e);
    c.language = DetectProseLanguage(c.text);
    if (c.language == kUndeterminedLanguage) c.language = doc_language_;
    c.meta = IsMeta(c.title) || OpensAsMeta(c.text);
    std::string key = c.source + '\x1f';
    for (const auto& t : c.title) key += t + '\x1e';
    key += '\x1f' + c.text;
    // Identical passages twice in one document: the next id along a chain of
    // rehashes, resumed where the last twin's search ended (walking it from
    // the start made a 5 MB line of one repeated pattern quadratic).
    const uint64_t first = Fnv1a64(key);
    auto [resume, fresh] = chain_end_.try_emplace(first, first);
    uint64_t h = resume->second;
    while (!ids_.insert(h).second) h = Fnv1a64("#", h);
    resume->second = h;
    c.id = Hex64(h);
    chunks_.push_back(std::move(c));
  }

  bool IsMeta(const std::vector<std::string>& trail) const {
    if (meta_headings_.empty()) return false;
    for (const auto& t : trail) {
      const std::string folded = Folded(t);
      for (const auto& m : meta_headings_) {
        if (folded == m) return true;
      }
    }
    return false;
  }

  bool OpensAsMeta(std::string_view text) const {
    for (const auto& opening : meta_openings_) {
      if (FoldedPrefix(text, opening.size()) == opening) return true;
    }
    return false;
  }

  std::string_view source_, text_;
  ChunkerOptions opt_;
  std::vector<std::string> meta_headings_, meta_openings_;  // the options' lists, folded
  TokenCounter count_;
  mutable size_t counted_ = 0, approximated_ = 0;  // exact and approximate tokens of the spans counted
  mutable size_t counted_bytes_ = 0;               // and their bytes
  mutable std::pair<size_t, size_t> recent_{0, 0};  // the last piece-sized span counted: bytes, tokens
  std::string doc_language_;
  std::string page_title_;  // the front matter's title, if any
  std::vector<Line> lines_;
  std::vector<size_t> partner_;
  std::vector<Heading> headings_;
  std::unordered_map<std::string, int> marked_levels_;  // first word of a marked heading -> its level
  std::unordered_map<std::string, int> item_levels_;    // Kind() of items under a kind heading -> their level
  std::vector<Block> pending_;
  std::vector<std::string> pending_trail_;
  std::vector<Chunk> chunks_;
  std::unordered_set<uint64_t> ids_;
  std::unordered_map<uint64_t, uint64_t> chain_end_;  // a passage's first id -> the last id its twins took
};

}  // namespace

size_t ApproxTokenCount(std::string_view text) {
  size_t tokens = 0, word_bytes = 0;
  auto end_word = [&] {
    if (word_bytes) tokens += 1 + word_bytes / 6;
    word_bytes = 0;
  };
  for (size_t i = 0; i < text.size();) {
    size_t at = i;
    char32_t cp = utf8::Next(text, i);
    if (utf8::IsLatinLetter(cp) || utf8::IsDigit(cp)) {
      word_bytes += i - at;
      continue;
    }
    end_word();
    if (!utf8::IsSpace(cp)) ++tokens;  // CJK characters, punctuation, symbols
  }
  end_word();
  return tokens;
}

std::vector<Chunk> ChunkDocument(std::string_view source, std::string_view text, const ChunkerOptions& options,
                                 const TokenCounter& count_tokens) {
  std::string what = "document '" + std::string(source) + "'";
  utf8::Require(text, what.c_str());
  if (options.max_tokens == 0) throw Error(ErrorCode::kInvalidArgument, "chunker max_tokens must be positive");
  return DocumentChunker(source, text, options, count_tokens).Run();
}

}  // namespace vesper
