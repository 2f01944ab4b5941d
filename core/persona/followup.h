// Follow-ups that lean on the conversation ("Why?", "Can you give an
// example?", "E depois?", "能举个例子吗？"): recognised as whole phrases in
// en, pt and zh, with the fillers people put around them ("And", "Ok",
// "please", "呢"), so a full question that merely starts with "why" is a new
// question, not a follow-up.
#pragma once
#include <string_view>

namespace vesper {

enum class FollowUp { kNone, kWhy, kExample, kMore };

FollowUp ParseFollowUp(std::string_view question);

}  // namespace vesper
