// The file framing a split index's entry and fragments share
// (core/collection/split.h): magic, version, total bytes, body, crc32.
#pragma once
#include <cstddef>
#include <string>

#include "core/util/bytes.h"

namespace vesper::split_format {

inline constexpr char kEntryMagic[8] = {'V', 'E', 'S', 'P', 'E', 'R', 'I', 'X'};
inline constexpr char kTermsMagic[8] = {'V', 'E', 'S', 'P', 'E', 'R', 'T', 'F'};
inline constexpr char kMatchMagic[8] = {'V', 'E', 'S', 'P', 'E', 'R', 'M', 'F'};
// A neighbour's cosine (and a floor) as a byte: round(255 * cosine), cosines below 0 as 0.
inline constexpr float kCosineScale = 255.f;
inline constexpr size_t kMaxNeighbors = 255;
// A translated word counts this much towards choosing a query's pages, as
// hybrid ranking weighs the BM25 of its translation (SearchOptions::translated_weight).
inline constexpr float kTranslatedShare = 0.5f;

void Open(Bytes& out, const char* magic);
void Close(Bytes& out);
// The body of a file Open/Close wrote, checked (kCorruptData, kUnsupported).
ByteReader Check(const uint8_t* data, size_t size, const char* magic, const std::string& what);

}  // namespace vesper::split_format
