// Leaving and re-entering the role: commands, not questions. A command is
// one of the persona file's phrases, said with any of its courtesies around
// it ("OK, you can stop role-playing now, please", "好的，不用扮演了吧");
// only whole phrases match, so a question that mentions the words ("为什么
// 退出 Tesla？") stays a question.
#pragma once
#include <string>
#include <string_view>

#include "core/persona/persona.h"

namespace vesper {

enum class RoleCommand { kNone, kExit, kReenter };

// `language` receives the language of the phrase that matched.
RoleCommand ParseRoleCommand(const Persona& persona, std::string_view question, std::string* language);

}  // namespace vesper
