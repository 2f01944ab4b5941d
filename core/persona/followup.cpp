#include "core/persona/followup.h"

#include <string>
#include <vector>

#include "core/persona/text_match.h"
#include "core/text/lang.h"

namespace vesper {

namespace {

// The language files' follow-up phrases (core/text/lang/), compared by
// CommandKey (folded, without spaces or punctuation), in this order.
constexpr std::pair<FollowUp, const char*> kFollowUps[] = {
    {FollowUp::kWhy, "followup_why"}, {FollowUp::kExample, "followup_example"}, {FollowUp::kMore, "followup_more"}};

// Words around a follow-up that do not change it ("ok, why?", "e depois, por favor").
constexpr const char* kLeads = "followup_leads";
constexpr const char* kTails = "followup_tails";

bool StripOne(std::string& key, const char* list, bool lead) {
  for (const std::string& w : AllLanguageWords(list)) {
    const std::string k = CommandKey(w);
    if (k.empty() || k.size() >= key.size()) continue;
    const bool at = lead ? key.compare(0, k.size(), k) == 0 : key.compare(key.size() - k.size(), k.size(), k) == 0;
    if (!at) continue;
    key = lead ? key.substr(k.size()) : key.substr(0, key.size() - k.size());
    return true;
  }
  return false;
}

FollowUp Lookup(const std::string& key) {
  for (const auto& [kind, list] : kFollowUps) {
    for (const std::string& phrase : AllLanguageWords(list)) {
      if (key == CommandKey(phrase)) return kind;
    }
  }
  return FollowUp::kNone;
}

}  // namespace

FollowUp ParseFollowUp(std::string_view question) {
  constexpr int kMaxFillers = 3;
  std::string key = CommandKey(question);
  for (int i = 0; i <= kMaxFillers && !key.empty(); ++i) {
    if (FollowUp f = Lookup(key); f != FollowUp::kNone) return f;
    std::string lead = key, tail = key;
    const bool l = StripOne(lead, kLeads, true), t = StripOne(tail, kTails, false);
    if (l && Lookup(lead) != FollowUp::kNone) return Lookup(lead);
    if (t && Lookup(tail) != FollowUp::kNone) return Lookup(tail);
    if (!l && !t) break;
    key = l ? lead : tail;
    if (l && t) StripOne(key, kTails, false);
  }
  return FollowUp::kNone;
}

}  // namespace vesper
