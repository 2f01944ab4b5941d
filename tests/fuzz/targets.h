// What each fuzz target does with one input: the core's loaders and text
// paths, fed bytes from anywhere. Shared by the libFuzzer binaries
// (tests/fuzz/fuzz_main.cpp, built by tools/fuzz.sh) and the regression
// replay the test command runs natively and in WASM
// (tests/native/test_fuzz_replay.cpp). A target returns normally for any
// input: a clear vesper::Error is the expected outcome for bad bytes;
// anything else (a crash, a sanitizer report, a hang) is a finding.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vesper::fuzz {

struct Target {
  const char* name;
  void (*run)(const uint8_t* data, size_t size);
};

// pack, static_model, tokenizer_model, persona, chunker, words, calibration, answer, lexicon, row_set.
extern const Target kTargets[];
extern const size_t kTargetCount;

const Target* FindTarget(const char* name);

// A pack's framing made consistent after its bytes were changed (total size,
// offsets, every checksum), as an attacker would; false when too short.
bool RepairPackFraming(std::vector<uint8_t>& bytes);

}  // namespace vesper::fuzz
