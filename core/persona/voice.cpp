#include "core/persona/voice.h"

#include <algorithm>
#include <cctype>

#include "core/text/lang.h"

namespace vesper {

namespace {

bool IsAlpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

// s[at, at + n) is a whole word: no `word` byte touches either end.
bool IsWholeWord(std::string_view s, size_t at, size_t n, bool (*word)(char)) {
  return (at == 0 || !word(s[at - 1])) && (at + n >= s.size() || !word(s[at + n]));
}

// The language file's form of an irregular verb after a new "I" or "eu"
// ("first_person_verbs": "is" -> "am", "foi" -> "fui"), or null.
const std::string* IrregularFirstPerson(const char* language, const std::string& w) {
  for (const WordMapping& m : LanguageMapping(language, "first_person_verbs")) {
    if (w == m.from && !m.to.empty()) return &m.to.front();
  }
  return nullptr;
}

bool InList(const char* language, const char* list, const std::string& w) {
  const std::vector<std::string>& words = LanguageWords(language, list);
  return std::find(words.begin(), words.end(), w) != words.end();
}

// "holds" -> "hold", "is" -> "am": the verb after a new "I".
std::string FirstPersonVerb(const std::string& w) {
  if (const std::string* irregular = IrregularFirstPerson("en", w)) return *irregular;
  if (w.size() > 3 && w.compare(w.size() - 3, 3, "ies") == 0) return w.substr(0, w.size() - 3) + "y";
  if (w.size() > 3 && (w.compare(w.size() - 4, 4, "shes") == 0 || w.compare(w.size() - 4, 4, "ches") == 0 ||
                       w.compare(w.size() - 3, 3, "xes") == 0 || w.compare(w.size() - 3, 3, "sses") == 0))
    return w.substr(0, w.size() - 2);
  if (w.size() > 2 && w.back() == 's' && w[w.size() - 2] != 's' && w[w.size() - 2] != 'u') return w.substr(0, w.size() - 1);
  return w;
}

// The word at s[i...] after spaces, as written.
std::string NextWord(const std::string& s, size_t i) {
  while (i < s.size() && s[i] == ' ') ++i;
  size_t e = i;
  while (e < s.size() && IsAlpha(s[e])) ++e;
  return s.substr(i, e - i);
}

// A word that only ever follows its subject: "everything he has built" has
// "he" as a subject though "everything" ends like "simulating".
bool IsAuxiliary(const std::string& w) { return InList("en", "subject_verbs", w); }

bool IsLowerWord(const std::string& w) { return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; }); }

std::string Capitalised(std::string w) {
  if (!w.empty() && w[0] >= 'a' && w[0] <= 'z') w[0] = static_cast<char>(w[0] - 'a' + 'A');
  return w;
}

// Stands for the persona where a sentence names it, until it is rewritten.
constexpr char kSelf[] = "\x01";

// What was written so far ends where a sentence (or a quotation) opens.
bool OpensSentence(const std::string& out) {
  return out.empty() || out.back() == '"' || (out.size() >= 2 && out[out.size() - 2] == '.');
}

// Copies s from i up to the next kSelf mark into out; returns where the text
// after the mark starts, or npos when no mark is left (all of s copied).
size_t CopyToSelf(const std::string& s, size_t i, std::string& out) {
  const size_t mark = s.find(kSelf[0], i);
  out.append(s, i, mark == std::string::npos ? std::string::npos : mark - i);
  return mark == std::string::npos ? mark : mark + 1;
}

// Where the persona is named: each whole-word occurrence of its names
// (longest first, so the full name collapses before the short one) and, when
// it opens the text, its subject pronoun become kSelf. word: the bytes a
// name's neighbours must not be. Returns the names, longest first.
std::vector<std::string> MarkSelf(std::string& s, const std::vector<std::string>& names,
                                  const std::vector<std::string>& pronouns, bool (*word)(char)) {
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& n : sorted) {
    if (n.empty()) continue;
    for (size_t at = s.find(n); at != std::string::npos; at = s.find(n, at + 1)) {
      if (IsWholeWord(s, at, n.size(), word)) s.replace(at, n.size(), kSelf);
    }
  }
  const std::string subject = pronouns.size() > 0 ? Capitalised(pronouns[0]) : "";
  if (!subject.empty() && s.rfind(subject + " ", 0) == 0) s.replace(0, subject.size(), kSelf);
  return sorted;
}

// pronouns: {subject, possessive}, lower case; either may be missing.
// In an English sentence that names the persona (marked), its subject pronoun
// further on is the persona too ("Karpathy earned a degree in Toronto, where
// he crossed paths with Hinton's group"), as its possessive is (English) and
// 他 is in Chinese; and that pronoun's reflexive ("I correct himself") is "myself".
void MarkPronounsAfterName(std::string& s, const std::vector<std::string>& pronouns) {
  if (s.find(kSelf[0]) == std::string::npos || pronouns.empty() || pronouns[0].empty()) return;
  const std::string& he = pronouns[0];
  for (size_t at = s.find(he); at != std::string::npos; at = s.find(he, at + 1)) {
    if (at > 0 && s[at - 1] == ' ' && IsWholeWord(s, at, he.size(), IsAlpha)) s.replace(at, he.size(), kSelf);
  }
  for (const WordMapping& r : LanguageMapping("en", "reflexives")) {
    if (r.from != he || r.to.empty()) continue;
    const std::string& reflexive = r.to[0];
    for (size_t at = s.find(reflexive); at != std::string::npos; at = s.find(reflexive, at + 1)) {
      if (IsWholeWord(s, at, reflexive.size(), IsAlpha)) s.replace(at, reflexive.size(), "myself");
    }
  }
}

std::string English(std::string s, const std::vector<std::string>& names, const std::vector<std::string>& pronouns) {
  if (names.empty()) return s;
  MarkSelf(s, names, pronouns, IsAlpha);
  MarkPronounsAfterName(s, pronouns);
  const std::string possessive = pronouns.size() > 1 ? Capitalised(pronouns[1]) : "";
  if (!possessive.empty() && s.rfind(possessive + " ", 0) == 0) s.replace(0, possessive.size(), std::string(kSelf) + "'s");

  std::string out;
  for (size_t i = 0; (i = CopyToSelf(s, i, out)) != std::string::npos;) {
    const bool start = OpensSentence(out);
    if (s.compare(i, 2, "'s") == 0 || s.compare(i, 4, "\xE2\x80\x99s") == 0) {  // possessive
      i += s[i] == '\'' ? 2 : 4;
      out += start ? "My" : "my";
      continue;
    }
    // Object position: "by Karpathy", "to Karpathy", "with Karpathy".
    std::string before;
    {
      size_t e = out.size();
      while (e > 0 && out[e - 1] == ' ') --e;
      size_t b = e;
      while (b > 0 && IsAlpha(out[b - 1])) --b;
      before = out.substr(b, e - b);
      std::transform(before.begin(), before.end(), before.begin(), ::tolower);
    }
    const bool object = !IsAuxiliary(NextWord(s, i)) &&
                        (InList("en", "object_before", before) || (before.size() > 4 && before.compare(before.size() - 3, 3, "ing") == 0));
    if (object) {
      out += "me";
      continue;
    }
    out += "I";
    // Subject: the verb that follows agrees with "I" (past an adverb: "always recommends").
    while (i < s.size() && s[i] == ' ') {
      size_t b = i + 1, e = b;
      while (e < s.size() && IsAlpha(s[e])) ++e;
      std::string word = s.substr(b, e - b);
      if (!IsLowerWord(word)) break;
      out += ' ';
      const bool adverb = (word.size() > 3 && word.compare(word.size() - 2, 2, "ly") == 0) || InList("en", "adverbs", word);
      out += adverb ? word : FirstPersonVerb(word);
      i = e;
      if (!adverb) break;
    }
  }
  // The possessive elsewhere in a sentence about the persona is the persona's.
  if (pronouns.size() > 1 && !pronouns[1].empty()) {
    const std::string theirs = " " + pronouns[1] + " ";
    for (size_t at = out.find(theirs); at != std::string::npos; at = out.find(theirs, at + 1)) out.replace(at, theirs.size(), " my ");
  }
  return out;
}

std::string Chinese(std::string s, const std::vector<std::string>& names, const std::vector<std::string>& pronouns) {
  bool about_self = false;
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  const std::string me = "\xE6\x88\x91";  // 我
  for (const std::string& n : sorted) {
    if (n.empty()) continue;
    // Search on after what was written, so a name that is itself "我" cannot loop.
    for (size_t at = s.find(n); at != std::string::npos; at = s.find(n, at + me.size())) {
      s.replace(at, n.size(), me);
      about_self = true;
    }
  }
  // The persona's pronoun (他) in a sentence about it is the persona.
  if (about_self && !pronouns.empty() && !pronouns[0].empty()) {
    const std::string& he = pronouns[0];
    for (size_t at = s.find(he); at != std::string::npos; at = s.find(he, at + me.size())) s.replace(at, he.size(), me);
  }
  return s;
}

// The first person singular of a Portuguese verb in the third: the
// irregular ones the knowledge bases use, then the regular endings of the
// preterite ("nasceu" -> "nasci", "trabalhou" -> "trabalhei", "partiu" ->
// "parti") and the present ("trabalha" -> "trabalho", "escreve" ->
// "escrevo"). The imperfect ("trabalhava", "dizia") is the same in both.
std::string PortugueseFirstPersonVerb(const std::string& w) {
  if (const std::string* irregular = IrregularFirstPerson("pt", w)) return *irregular;
  auto ends = [&](const char* e) { size_t n = std::char_traits<char>::length(e); return w.size() > n + 1 && w.compare(w.size() - n, n, e) == 0; };
  auto swap = [&](size_t drop, const char* add) { return w.substr(0, w.size() - drop) + add; };
  // The stem keeps its sound before a new vowel: "reconhece" -> "reconheço",
  // "protege" -> "protejo", "ficou" -> "fiquei", "chegou" -> "cheguei",
  // "começou" -> "comecei".
  auto respell = [](std::string stem, const std::vector<std::pair<std::string, std::string>>& changes) {
    for (const auto& [from, to] : changes) {
      if (stem.size() > from.size() && stem.compare(stem.size() - from.size(), from.size(), from) == 0) {
        return stem.substr(0, stem.size() - from.size()) + to;
      }
    }
    return stem;
  };
  const std::string cedilla = "\xC3\xA7";  // ç
  if (ends("ava") || ends("ia")) return w;   // imperfect: the same form
  if (ends("ou")) return respell(swap(2, ""), {{cedilla, "c"}, {"c", "qu"}, {"g", "gu"}}) + "ei";  // trabalhou -> trabalhei
  if (ends("eu")) return swap(2, "i");       // nasceu -> nasci
  if (ends("iu")) return swap(2, "i");       // partiu -> parti
  if (ends("a")) return swap(1, "o");        // trabalha -> trabalho
  if (ends("e")) return respell(swap(1, ""), {{"c", cedilla}, {"g", "j"}}) + "o";  // escreve -> escrevo
  return w;
}

bool IsPortugueseWordByte(char c) { return IsAlpha(c) || (static_cast<unsigned char>(c) & 0x80) != 0; }

// The possessive elsewhere in a Portuguese sentence about the persona is
// the persona's ("Eureka Labs é sua aposta" -> "é minha aposta"; the
// language file's "possessives": it agrees with what is possessed, not with
// the persona), unless the sentence speaks to the reader ("você"), whose
// possessive it may be.
void OwnPossessives(std::string& s) {
  std::string lower = s;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  for (const std::string& reader : LanguageWords("pt", "reader_pronouns")) {
    if (lower.find(reader) != std::string::npos) return;
  }
  for (const WordMapping& m : LanguageMapping("pt", "possessives")) {
    if (m.to.empty()) continue;
    for (size_t at = lower.find(m.from); at != std::string::npos; at = lower.find(m.from, at + 1)) {
      if (!IsWholeWord(lower, at, m.from.size(), IsPortugueseWordByte)) continue;
      const bool capital = s[at] != lower[at];
      const std::string mine = capital ? Capitalised(m.to.front()) : m.to.front();
      s.replace(at, m.from.size(), mine);
      lower.replace(at, m.from.size(), m.to.front());
    }
  }
}

// The Portuguese rewrite: the persona's name (or, opening a sentence, its
// pronoun) as the subject becomes "Eu" or "eu" and its verb agrees; after a
// preposition it becomes "mim" ("comigo" after "com"). pronouns: {subject}.
std::string Portuguese(std::string s, const std::vector<std::string>& names, const std::vector<std::string>& pronouns) {
  if (names.empty()) return s;
  const std::vector<std::string> sorted = MarkSelf(s, names, pronouns, IsPortugueseWordByte);
  std::string out;
  bool about_self = false;
  for (size_t i = 0; (i = CopyToSelf(s, i, out)) != std::string::npos;) {
    about_self = true;
    const bool start = OpensSentence(out);
    size_t e = out.size();
    while (e > 0 && out[e - 1] == ' ') --e;
    size_t b = e;
    while (b > 0 && IsPortugueseWordByte(out[b - 1])) --b;
    std::string before = out.substr(b, e - b);
    std::transform(before.begin(), before.end(), before.begin(), ::tolower);
    if (before == "com") {
      out.replace(b, out.size() - b, "comigo");
      continue;
    }
    // "a carreira de Karpathy" would need "a minha carreira": a possessive
    // keeps the name (its short form).
    if (before == "de" || before == "do" || before == "da") {
      out += sorted.back();
      continue;
    }
    if (InList("pt", "object_before", before)) {
      out += "mim";
      continue;
    }
    out += start ? "Eu" : "eu";
    // The verb that follows agrees with "eu" (past an adverb: "também escreveu").
    while (i < s.size() && s[i] == ' ') {
      size_t wb = i + 1, we = wb;
      while (we < s.size() && IsPortugueseWordByte(s[we])) ++we;
      std::string word = s.substr(wb, we - wb);
      // A lower-case word (or one opening with an accented letter) is the verb; a name or number is not.
      const unsigned char first = word.empty() ? 0 : static_cast<unsigned char>(word[0]);
      if (!((first >= 'a' && first <= 'z') || first >= 0x80)) break;
      out += ' ';
      const bool adverb = (word.size() > 5 && word.compare(word.size() - 5, 5, "mente") == 0) || InList("pt", "adverbs", word);
      out += adverb ? word : PortugueseFirstPersonVerb(word);
      i = we;
      if (!adverb) break;
    }
  }
  if (about_self) OwnPossessives(out);
  return out;
}

// Stands for a name the first person already states ("我是 Andrej Karpathy",
// "I am Andrej Karpathy"): rewritten, it read "我是 我。".
constexpr char kStated = '\x02';

// Each name that follows one of the language's self_copula phrases ("i am",
// "eu sou", "我是") becomes kStated, the names in order in `stated`.
std::string HideStatedNames(std::string s, const std::string& language, const std::vector<std::string>& names,
                            std::vector<std::string>& stated) {
  const std::vector<std::string>& copulas = LanguageWords(language, "self_copula");
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  std::vector<std::pair<size_t, std::string>> found;  // offset, name
  for (const std::string& n : sorted) {
    for (size_t at = n.empty() ? std::string::npos : s.find(n); at != std::string::npos; at = s.find(n, at + 1)) {
      size_t end = at;
      while (end > 0 && s[end - 1] == ' ') --end;
      std::string before = s.substr(0, end);
      std::transform(before.begin(), before.end(), before.begin(), [](unsigned char c) { return std::tolower(c); });
      const bool after_copula = std::any_of(copulas.begin(), copulas.end(), [&](const std::string& c) {
        return before.size() >= c.size() && before.compare(before.size() - c.size(), c.size(), c) == 0 &&
               IsWholeWord(before, before.size() - c.size(), c.size(), IsAlpha);
      });
      const bool inside_longer = std::any_of(found.begin(), found.end(), [&](const auto& f) {
        return at >= f.first && at < f.first + f.second.size();
      });
      if (after_copula && !inside_longer) found.emplace_back(at, n);
    }
  }
  std::sort(found.begin(), found.end());
  for (auto f = found.rbegin(); f != found.rend(); ++f) s.replace(f->first, f->second.size(), 1, kStated);
  for (const auto& f : found) stated.push_back(f.second);
  return s;
}

std::string ShowStatedNames(std::string s, const std::vector<std::string>& stated) {
  size_t next = 0;
  for (size_t at = s.find(kStated); at != std::string::npos && next < stated.size(); at = s.find(kStated, at)) {
    s.replace(at, 1, stated[next]);
    at += stated[next++].size();
  }
  return s;
}

std::string Rewrite(std::string s, const std::string& language, const std::vector<std::string>& names,
                    const std::vector<std::string>& pronouns) {
  if (language == "en") return English(std::move(s), names, pronouns);
  if (language == "zh") return Chinese(std::move(s), names, pronouns);
  if (language == "pt") return Portuguese(std::move(s), names, pronouns);
  return s;
}

}  // namespace

std::string ToFirstPerson(std::string_view sentence, const std::string& language, const SelfReference& self) {
  static const std::vector<std::string> kNone;
  auto it = self.pronouns.find(language);
  const std::vector<std::string>& pronouns = it == self.pronouns.end() ? kNone : it->second;
  std::vector<std::string> stated;
  std::string s = HideStatedNames(std::string(sentence), language, self.names, stated);
  return ShowStatedNames(Rewrite(std::move(s), language, self.names, pronouns), stated);
}

}  // namespace vesper
