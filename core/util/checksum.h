// CRC-32 (IEEE) for pack sections and FNV-1a for stable ids and fingerprints.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vesper {

uint32_t Crc32(const void* data, size_t size, uint32_t seed = 0);

inline uint64_t Fnv1a64(std::string_view s, uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string Hex64(uint64_t v);

}  // namespace vesper
