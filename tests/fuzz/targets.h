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

// pack, static_model, tokenizer_model, persona, chunker, words, calibration, answer, lexicon, row_set, split.
extern const Target kTargets[];
extern const size_t kTargetCount;

const Target* FindTarget(const char* name);

// A pack's framing made consistent after its bytes were changed (total size,
// offsets, every checksum), as an attacker would; false when too short.
bool RepairPackFraming(std::vector<uint8_t>& bytes);

// A split index's entry or term fragment (core/collection/split.h) made
// consistent after a change (its total size, checksum, and a term
// fragment's number 0); false when it is neither.
bool RepairSplitFraming(std::vector<uint8_t>& bytes);

// The small split index the split target tests inputs against: its entry
// and its term fragments (also the target's seeds).
const std::vector<std::vector<uint8_t>>& ReferenceSplitFiles();

}  // namespace vesper::fuzz
