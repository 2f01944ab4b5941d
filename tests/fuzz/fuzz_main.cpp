// One libFuzzer binary per target (VESPER_FUZZ_TARGET names it); see tools/fuzz.sh.
#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/targets.h"

#define VESPER_STR2(x) #x
#define VESPER_STR(x) VESPER_STR2(x)

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const vesper::fuzz::Target* target = [] {
    const vesper::fuzz::Target* t = vesper::fuzz::FindTarget(VESPER_STR(VESPER_FUZZ_TARGET));
    if (!t) {
      std::fprintf(stderr, "unknown fuzz target %s\n", VESPER_STR(VESPER_FUZZ_TARGET));
      std::abort();
    }
    return t;
  }();
  target->run(data, size);
  return 0;
}
