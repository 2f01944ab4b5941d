#include "core/persona/sentences.h"

#include <algorithm>

#include "core/util/utf8.h"

namespace vesper {

namespace {

bool IsSentenceEnd(char32_t cp) { return cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F || cp == 0xFF1B; }

std::string Collapse(std::string_view s) {
  std::string out;
  bool space = false;
  for (size_t i = 0; i < s.size();) {
    size_t start = i;
    char32_t cp = utf8::Next(s, i);
    if (utf8::IsSpace(cp)) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out.append(s, start, i - start);
  }
  return out;
}

}  // namespace

bool LooksLikeCode(std::string_view line) {
  size_t letters = 0, symbols = 0, total = 0;
  for (size_t i = 0; i < line.size();) {
    char32_t cp = utf8::Next(line, i);
    if (utf8::IsSpace(cp)) continue;
    ++total;
    if (cp >= 0x2500 && cp <= 0x259F) return true;  // box drawing: diagrams
    if (utf8::IsLatinLetter(cp) || utf8::IsCjk(cp)) ++letters;
    else if (std::string_view("{}[]()=<>_#|`*/\\;$@~^").find(static_cast<char>(cp < 0x80 ? cp : 0)) != std::string_view::npos &&
             cp < 0x80)
      ++symbols;
  }
  if (total == 0) return true;
  if (line.find("```") != std::string_view::npos || line.find("def ") == 0 || line.find("class ") == 0 ||
      line.find("import ") == 0 || line.find("self.") != std::string_view::npos || line.find("|---") != std::string_view::npos)
    return true;
  return letters * 10 < total * 6 || symbols * 10 > total;
}

namespace {

constexpr size_t kMinUnitBytes = 24;        // shorter pieces are labels and stray fragments
constexpr size_t kWrapWidth = 50;            // a line this long was hard-wrapped prose, continued below
constexpr size_t kMaxHeadingWords = 12;      // a longer line without a full stop is prose, not a heading
constexpr size_t kMaxHeadingBytes = 100;
constexpr size_t kMaxWholeItemBytes = 420;   // a longer list item is quoted sentence by sentence
constexpr size_t kMaxLabelBytes = 24;        // "Definition:" / "一句话：" before the text

size_t ListMarkerLength(std::string_view line) {
  size_t k = 0;
  while (k < line.size() && line[k] >= '0' && line[k] <= '9') ++k;
  if (k > 0 && k < 4 && k < line.size() && (line[k] == '.' || line[k] == ')') && k + 1 < line.size() && line[k + 1] == ' ')
    return k + 2;
  for (std::string_view m : {std::string_view("- "), std::string_view("* "), std::string_view("\xE2\x80\xA2 "),
                             std::string_view("\xE2\x86\x92 ")}) {
    if (line.substr(0, m.size()) == m) return m.size();
  }
  return 0;
}

// "2017      Director of AI at Tesla", "~1990s Family emigrates to Toronto":
// a year, then the event, with no verb joining them.
bool IsTimelineRow(std::string_view line) {
  size_t k = line.size() && line[0] == '~' ? 1 : 0;
  size_t digits = 0;
  while (k < line.size() && line[k] >= '0' && line[k] <= '9') ++k, ++digits;
  if (digits != 4) return false;
  if (k < line.size() && line[k] == 's') ++k;
  if (k + 1 >= line.size() || line[k] != ' ') return false;
  if (line[k + 1] == ' ') return true;  // aligned columns
  return line[k + 1] >= 'A' && line[k + 1] <= 'Z';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

struct Segment {
  std::string text;
  bool list_item = false;
  bool one_line = true;
  bool row = false;
  bool table_row = false;               // a Markdown table's row, read as an item (TableReader)
  bool after_lead_in = false;           // the line before it ended with a colon
  std::vector<std::string_view> lines;  // as written, when joined from several
};

// Whether a line opens as an item of its own would: upper-case or a digit.
bool OpensItem(std::string_view line) {
  return !line.empty() && ((line[0] >= 'A' && line[0] <= 'Z') || (line[0] >= '0' && line[0] <= '9'));
}

// Lines joined as wrapped prose that do not end as a sentence, after a
// lead-in, each opening as an item would ("...not merely a metaphor:" then
// "OS abstracts hardware → ..." a line): the lead-in's list written without
// bullets, one item a line. Joined, nothing of it could be quoted.
bool BareList(const Segment& seg) {
  if (!seg.after_lead_in || seg.list_item || seg.row || seg.lines.size() < 2 || EndsSentence(seg.text)) return false;
  return std::all_of(seg.lines.begin(), seg.lines.end(), OpensItem);
}

// A Markdown table line ("| Config files | System prompt |"): its cells,
// trimmed; empty when the line is not one (or has a single cell).
std::vector<std::string_view> TableCells(std::string_view line) {
  std::vector<std::string_view> cells;
  if (line.size() < 3 || line.front() != '|' || line.back() != '|') return cells;
  for (size_t from = 1, at = line.find('|', from); at != std::string_view::npos; from = at + 1, at = line.find('|', from))
    cells.push_back(Trim(line.substr(from, at - from)));
  if (cells.size() < 2) cells.clear();
  return cells;
}

// A table line's rows: itself, or, where a whole table was flattened onto
// one line ("| a | b | |---|---| | c | d |": it holds its rule), each row,
// split where one row's closing bar meets the next one's opening bar. (A
// line of one row may have an empty cell, "| a | | c |", written alike.)
std::vector<std::string_view> TableRows(std::string_view line) {
  std::vector<std::string_view> rows;
  if (line.find("|-") == std::string_view::npos && line.find("|:-") == std::string_view::npos) return {line};
  size_t from = 0;
  for (size_t at = line.find("| |"); at != std::string_view::npos; at = line.find("| |", from)) {
    rows.push_back(line.substr(from, at + 1 - from));
    from = at + 2;
  }
  rows.push_back(line.substr(from));
  return rows;
}

// The line under a table's header: "|---|:--:|".
bool IsTableRule(const std::vector<std::string_view>& cells) {
  return std::all_of(cells.begin(), cells.end(), [](std::string_view c) {
    return !c.empty() && c.find_first_not_of("-: ") == std::string_view::npos;
  });
}

// A table read as a list: its header a lead-in naming the columns
// ("Sistema Operacional → LLM:"), each row an item, its cells in order
// ("Config files → System prompt"). An answer then quotes a row with what
// its columns are, as it quotes a list item with its lead-in.
class TableReader {
 public:
  // A table line's cells (TableCells), adding what the line says to `segs`.
  void Take(const std::vector<std::string_view>& cells, std::vector<Segment>& segs) {
    if (cells.empty()) return;  // a flattened row of a single cell
    if (IsTableRule(cells)) {
      // The row above was the header: it introduces the rows below.
      if (last_row_ && !segs.empty()) {
        segs.back().text = Joined(last_cells_) + ":";
        segs.back().list_item = false;
      }
      last_row_ = false;
      return;
    }
    Segment row;
    row.table_row = true;
    row.text = Joined(cells);
    row.list_item = true;
    segs.push_back(std::move(row));
    last_cells_ = cells;
    last_row_ = true;
  }
  // A line that is not the table's: the next table has its own header.
  void End() { last_row_ = false; }

 private:
  // The cells in order, "→" between them, empty ones left out.
  static std::string Joined(const std::vector<std::string_view>& cells) {
    std::string out;
    for (std::string_view c : cells) {
      if (c.empty()) continue;
      if (!out.empty()) out += " \xE2\x86\x92 ";  // →
      out.append(c);
    }
    return out;
  }

  std::vector<std::string_view> last_cells_;  // views into the passage, as the cells are
  bool last_row_ = false;
};

// Hard-wrapped prose joins back into one segment; list items, short lines
// (headings, rows, tables) and blank lines end one.
std::vector<Segment> Segments(std::string_view passage) {
  std::vector<Segment> segs;
  Segment cur;
  std::string_view prev;
  size_t pos = 0;
  TableReader table;
  auto flush = [&] {
    if (!cur.text.empty()) segs.push_back(std::move(cur));
    cur = Segment();
  };
  while (pos <= passage.size()) {
    size_t nl = passage.find('\n', pos);
    if (nl == std::string_view::npos) nl = passage.size();
    std::string_view line = Trim(passage.substr(pos, nl - pos));
    pos = nl + 1;
    if (!TableCells(line).empty()) {
      flush();
      for (std::string_view row : TableRows(line)) table.Take(TableCells(row), segs);
      prev = std::string_view();
      continue;
    }
    table.End();
    const size_t marker = ListMarkerLength(line);
    const bool row = IsTimelineRow(line);
    if (line.empty() || marker || row || prev.size() < kWrapWidth || prev.back() == ':') flush();
    if (!line.empty()) {
      if (cur.text.empty()) {
        cur.list_item = marker > 0;
        cur.row = row;
        cur.after_lead_in = !prev.empty() && prev.back() == ':';
        line.remove_prefix(marker);
      } else {
        cur.text += ' ';
        cur.one_line = false;
      }
      cur.text.append(line);
      cur.lines.push_back(line);
    }
    prev = line.empty() ? std::string_view() : line;
  }
  flush();
  std::vector<Segment> out;
  for (Segment& seg : segs) {
    if (!BareList(seg)) {
      out.push_back(std::move(seg));
      continue;
    }
    for (std::string_view line : seg.lines) {
      Segment item;
      item.text = std::string(line);
      item.list_item = true;
      out.push_back(std::move(item));
    }
  }
  return out;
}

size_t CountWords(std::string_view s) {
  size_t n = 0;
  bool in = false;
  for (char c : s) {
    bool space = c == ' ';
    if (!space && !in) ++n;
    in = !space;
  }
  return n;
}

// Long enough to stand as a statement: kMinStatementWords Latin words, or
// as many bytes of CJK text (no spaces between its words).
bool SaysSomething(std::string_view s) {
  constexpr size_t kMinStatementWords = 8;
  constexpr size_t kMinStatementCjkBytes = 36;  // twelve Han characters
  const bool cjk = std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) >= 0xE3; });
  return CountWords(s) >= kMinStatementWords || (cjk && s.size() >= kMinStatementCjkBytes);
}

// "Label: value" with a label of a few words and no sentence end.
bool IsField(const std::string& s) {
  constexpr size_t kMaxLabelWords = 3;
  const size_t colon = s.find(": ");
  if (colon == std::string::npos || colon == 0 || colon > kMaxLabelBytes) return false;
  return CountWords(std::string_view(s).substr(0, colon)) <= kMaxLabelWords && !EndsSentence(s);
}

// Markdown table rows flattened into text ("| 2015 | OpenAI | ... |").
bool IsTableRow(std::string_view s) {
  size_t pipes = 0;
  for (size_t at = s.find(" | "); at != std::string_view::npos; at = s.find(" | ", at + 3)) ++pipes;
  return pipes >= 2 || s.rfind("| ", 0) == 0;
}

bool EndsLeadIn(std::string_view s) {
  return (!s.empty() && s.back() == ':') || (s.size() >= 3 && s.substr(s.size() - 3) == "\xEF\xBC\x9A");
}

// Markdown emphasis and code marks are layout; white space collapses.
std::string Clean(std::string_view piece) {
  std::string raw(piece);
  for (const char* mark : {"**", "`"}) {
    for (size_t at = raw.find(mark); at != std::string::npos; at = raw.find(mark, at)) raw.erase(at, std::string_view(mark).size());
  }
  return Collapse(raw);
}

// A one-word label before a colon ("Definition:", "一句话：") introduces; it does not say.
void DropLabel(std::string& s) {
  for (std::string_view colon : {std::string_view(":"), std::string_view("\xEF\xBC\x9A")}) {
    size_t at = s.find(colon);
    if (at != std::string::npos && at > 0 && at <= kMaxLabelBytes && s.size() > at + colon.size() + 20 &&
        s.substr(0, at).find(' ') == std::string::npos) {
      s = s.substr(at + colon.size());
      while (!s.empty() && (s[0] == ' ' || s[0] == '-')) s.erase(0, 1);
      return;
    }
  }
}

// A name's initials before a full stop ("J", "J.C.R" in "J.C.R. Licklider"):
// single capitals between dots, which a full stop after does not end a
// sentence with. (Nor after one lower-case letter: "p. 3".)
bool IsInitials(std::string_view word) {
  if (word.size() <= 1) return true;
  for (size_t i = 0; i < word.size(); ++i) {
    const bool letter = word[i] >= 'A' && word[i] <= 'Z';
    if (i % 2 == 0 ? !letter : word[i] != '.') return false;
  }
  return true;
}

// A quotation of several sentences is one unit: quoting its second sentence
// alone reads as a fragment ("It's not really coding — it's more like
// directing.\""). Up to this many bytes: past it, a quotation (or a stray
// quote mark) splits as prose does.
constexpr size_t kMaxQuotationBytes = 600;

// Where a quotation opened at `from` closes: the byte after its closing
// mark, or npos when none comes within kMaxQuotationBytes.
size_t QuotationEnd(std::string_view text, size_t from, bool curly) {
  const std::string_view close = curly ? "\xE2\x80\x9D" : "\"";
  // Only the window is searched: a text of many opening marks and no closing
  // one stays linear.
  const size_t at = text.substr(from, kMaxQuotationBytes + close.size()).find(close);
  return at == std::string_view::npos ? std::string_view::npos : from + at + close.size();
}

// Where the sentences of `text` end: after ., ! or ? followed by a space or
// the end (not "e.g." or "vs."), and after CJK full stops; not inside a
// quotation that closes soon after.
std::vector<std::string_view> SentencePieces(std::string_view text) {
  std::vector<std::string_view> out;
  size_t begin = 0;
  size_t quoted_until = 0;  // inside a quotation up to here
  for (size_t i = 0; i < text.size();) {
    size_t at = i;
    char32_t cp = utf8::Next(text, i);
    // An opening mark: curly, or straight at the start of a word.
    const bool opens = cp == 0x201C || (cp == '"' && (at == 0 || text[at - 1] == ' ' || text[at - 1] == '(') &&
                                        i < text.size() && text[i] != ' ');
    if (opens && at >= quoted_until) {
      const size_t close = QuotationEnd(text, i, cp == 0x201C);
      if (close != std::string_view::npos) quoted_until = close;
    }
    bool end = IsSentenceEnd(cp);
    // A full stop inside closing quotes ends the sentence after them.
    if ((cp == '"' || cp == 0x201D) && at > begin && (text[at - 1] == '.' || text[at - 1] == '!' || text[at - 1] == '?') &&
        (i >= text.size() || text[i] == ' '))
      end = true;
    if ((cp == '.' || cp == '!' || cp == '?') && (i >= text.size() || text[i] == ' ')) {
      size_t w = at;
      while (w > begin && text[w - 1] != ' ') --w;
      std::string_view word = text.substr(w, at - w);
      end = !(word == "e.g" || word == "i.e" || word == "vs" || word == "etc" || word == "ex" || word == "p.ex" ||
              IsInitials(word));
    }
    if (end && i < quoted_until) end = false;
    if (end) {
      out.push_back(text.substr(begin, i - begin));
      begin = i;
    }
  }
  if (begin < text.size()) out.push_back(text.substr(begin));
  return out;
}

class Splitter {
 public:
  std::vector<Sentence> Run(std::string_view passage) {
    for (Segment& seg : Segments(passage)) {
      // Markdown lists flattened onto one line ("擅长： - a - b") are items, not one sentence.
      size_t from = 0, at = seg.table_row ? std::string::npos : seg.text.find(" - ");  // "2005 - 2009" in a cell
      bool item = seg.list_item;
      for (; at != std::string::npos; at = seg.text.find(" - ", at + 3)) {
        Piece(std::string_view(seg.text).substr(from, at - from), item, false, false);
        from = at + 3;
        item = true;
      }
      Piece(std::string_view(seg.text).substr(from), item, seg.row, seg.one_line);
    }
    SettleDanglingLeadIns();
    SettleLoneLine();
    return std::move(out_);
  }

 private:
  void Piece(std::string_view text, bool list_item, bool row, bool one_line) {
    std::vector<std::string_view> parts = SentencePieces(text);
    if (list_item && text.size() <= kMaxWholeItemBytes) {
      // An item that runs into the next list's lead-in ("... 更重要。 我追求的：") is two things.
      std::string_view tail = parts.size() > 1 ? parts.back() : std::string_view();
      if (!tail.empty() && EndsLeadIn(Trim(tail))) {
        Emit(text.substr(0, text.size() - tail.size()), true, row, false);
        return Emit(Trim(tail), false, false, false);
      }
      return Emit(text, true, row, false);
    }
    for (std::string_view p : parts) Emit(p, list_item, row, one_line && parts.size() == 1);
  }

  void Emit(std::string_view piece, bool list_item, bool row, bool lone_line) {
    std::string s = Clean(piece);
    // "Size: ~100 lines of pure Python" on a line of its own is a field: an
    // item whose label says what the value is, so the label stays.
    const bool field = lone_line && !list_item && IsField(s);
    if (field) list_item = true;
    else DropLabel(s);
    if (IsTableRow(s)) return;
    const bool lead_in = EndsLeadIn(s);
    // A short lead-in ("His thesis:") is kept as what introduces the next unit.
    if ((s.size() < kMinUnitBytes && !lead_in) || LooksLikeCode(s)) return;
    // A passage that starts mid-sentence (chunk overlap) starts lower-case: not quotable.
    if (s[0] >= 'a' && s[0] <= 'z' && out_.empty()) return;
    Sentence u{std::move(s), out_.size()};
    u.list_item = list_item;
    u.row = row;
    u.lead_in = EndsLeadIn(u.text);
    u.complete = EndsSentence(u.text);
    const std::string& t = u.text;
    u.question = t.back() == '?' || (t.size() >= 3 && t.substr(t.size() - 3) == "\xEF\xBC\x9F");
    u.heading = lone_line && !list_item && !u.complete && !u.lead_in && CountWords(t) <= kMaxHeadingWords &&
                t.size() <= kMaxHeadingBytes;
    // What introduces a unit: the lead-in of its list, or the label-like
    // sentence just before it ("His thesis:" before the title).
    if (list_item || (lead_in_ >= 0 && static_cast<size_t>(lead_in_) + 1 == u.index)) u.context = lead_in_;
    if (u.lead_in) lead_in_ = static_cast<int>(u.index);
    else if (!list_item) lead_in_ = -1;  // prose ends the list a lead-in introduced
    out_.push_back(std::move(u));
  }

  // A lead-in whose list lies past the passage's end (the chunker cut
  // between them) introduces nothing here. Long enough to say something on
  // its own, it is a statement: "... a shared backbone that feeds into
  // multiple heads specialized for various perception tasks:" ends in a
  // full stop and is quotable; a short label ("Concept:") stays what it is.
  void SettleDanglingLeadIns() {
    for (size_t i = out_.size(); i-- > 0;) {
      Sentence& s = out_[i];
      if (!s.lead_in) {
        if (s.quotable()) return;  // what comes before introduces something here
        continue;
      }
      if (!SaysSomething(s.text)) continue;
      const bool wide = s.text.back() != ':';  // the full-width colon of CJK text
      s.text.resize(s.text.size() - (wide ? 3 : 1));
      s.text += wide ? "\xE3\x80\x82" : ".";  // 。
      s.lead_in = false;
      s.complete = true;
      s.context = -1;
    }
  }

  // A passage that is one long line without a full stop under its heading
  // ("Geoff Hinton / Fei-Fei Li / J.C.R. Licklider / ... → Andrej Karpathy →
  // ...") says what the heading promises: a statement, not a fragment.
  void SettleLoneLine() {
    if (out_.size() != 1) return;
    Sentence& s = out_[0];
    if (s.complete || s.list_item || s.lead_in || s.question || s.heading || s.row || !SaysSomething(s.text)) return;
    s.complete = true;
  }

  std::vector<Sentence> out_;
  int lead_in_ = -1;
};

}  // namespace

bool EndsSentence(std::string_view text) {
  while (!text.empty()) {
    size_t i = text.size() - 1;
    while (i > 0 && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) --i;
    size_t at = i;
    char32_t cp = utf8::Next(text, i);
    // Closing quotes and brackets after the full stop.
    if (cp == '"' || cp == '\'' || cp == ')' || cp == 0x201D || cp == 0x2019 || cp == 0xFF09 || cp == 0x300D || cp == 0x300F) {
      text = text.substr(0, at);
      continue;
    }
    return cp == '.' || cp == '!' || cp == '?' || cp == 0x2026 || IsSentenceEnd(cp);
  }
  return false;
}

Sentence TimelineEntry(Sentence row) {
  const size_t space = row.text.find(' ');
  if (!row.row || space == std::string::npos) return row;
  row.text = row.text.substr(0, space) + ":" + row.text.substr(space);
  if (!EndsSentence(row.text)) row.text += '.';
  row.row = false;
  row.heading = false;  // a short row on a line of its own read as one
  row.complete = true;
  row.context = -1;  // a row's lead-in ("Complete Timeline:") frames nothing here
  return row;
}

std::vector<Sentence> SplitSentences(std::string_view passage) {
  if (utf8::FindInvalid(passage) != std::string_view::npos) return {};
  return Splitter().Run(passage);
}

}  // namespace vesper
