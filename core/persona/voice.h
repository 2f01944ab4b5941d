// Passages describe the persona in the third person ("Karpathy joined
// Tesla"); the persona speaks in the first ("I joined Tesla"). English and
// Chinese rewrite reliably with a few rules; Portuguese verbs would need
// conjugating, so Portuguese passages keep their wording inside a
// first-person frame.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace vesper {

// self_names: longest first is not required; "Andrej Karpathy" and "Karpathy".
std::string ToFirstPerson(std::string_view sentence, const std::string& language,
                          const std::vector<std::string>& self_names);

}  // namespace vesper
