#include "core/util/checksum.h"

#include <array>

namespace vesper {
namespace {

// Slicing-by-8: table[k][b] is the CRC of byte b followed by k zero bytes, so
// eight input bytes fold in with eight independent lookups instead of eight
// dependent ones (packs are checksummed whole on every load).
constexpr int kSlices = 8;
using CrcTables = std::array<std::array<uint32_t, 256>, kSlices>;

CrcTables MakeCrcTables() {
  CrcTables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (int k = 1; k < kSlices; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
  }
  return t;
}

}  // namespace

uint32_t Crc32(const void* data, size_t size, uint32_t seed) {
  static const CrcTables t = MakeCrcTables();
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t c = ~seed;
  for (; size >= kSlices; size -= kSlices, p += kSlices) {
    // Bytes as a little-endian word, whatever the platform's order.
    const uint32_t lo = c ^ (uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24);
    c = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^
        t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
  }
  for (; size > 0; --size, ++p) c = t[0][(c ^ *p) & 0xFF] ^ (c >> 8);
  return ~c;
}

std::string Hex64(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[i] = digits[v & 0xF];
  return s;
}

}  // namespace vesper
