// The language files (core/text/lang/*.txt) as the build compiles them in
// (tools/cmake/embed_languages.cmake); core/text/lang.h is what reads them.
#pragma once
#include <cstddef>

namespace vesper {

struct LanguageFile {
  const char* code;  // the file's name: "en", "pt", "zh"
  const char* text;
};

extern const LanguageFile kLanguageFiles[];
extern const size_t kLanguageFileCount;

}  // namespace vesper
