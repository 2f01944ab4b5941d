// Passages describe the persona in the third person ("Karpathy joined
// Tesla"); the persona speaks in the first ("I joined Tesla"). English and
// Chinese rewrite reliably with a few rules; Portuguese verbs would need
// conjugating, so Portuguese passages keep their wording inside a
// first-person frame.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace vesper {

// How passages refer to the persona (from its persona file): its names
// ("Andrej Karpathy", "Karpathy"; longest first is not required) and, per
// language, the third-person pronouns a sentence about it uses: en
// {subject, possessive} ("he", "his"), zh {subject} ("他").
struct SelfReference {
  std::vector<std::string> names;
  std::map<std::string, std::vector<std::string>> pronouns;
};

std::string ToFirstPerson(std::string_view sentence, const std::string& language, const SelfReference& self);

}  // namespace vesper
