// Native reference output for the node parity tests: the same operations the
// WASM module exposes, printed as JSON, so a test can require equality.
//
//   vesper_dump tokenize MODEL FILE       one {"ids","pieces"} line per input line
//   vesper_dump chunk FILE...             chunks of each file
//   vesper_dump search QUERY FILE...      lexical search over the files' chunks
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "core/chunker/chunker.h"
#include "core/collection/collection.h"
#include "core/tokenizer/tokenizer.h"
#include "core/util/error.h"
#include "core/util/utf8.h"

using namespace vesper;

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kNotFound, "cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Json(std::string_view s) {
  std::string out = "\"";
  utf8::AppendJsonEscaped(out, s);
  return out + "\"";
}

std::string Basename(const std::string& p) { return p.substr(p.find_last_of('/') + 1); }

void PrintChunk(const Chunk& c) {
  std::string t = "[";
  for (size_t i = 0; i < c.title.size(); ++i) t += (i ? "," : "") + Json(c.title[i]);
  std::printf("{\"id\":%s,\"title\":%s],\"text\":%s,\"source\":%s,\"begin\":%u,\"end\":%u,\"language\":%s,\"meta\":%s}", Json(c.id).c_str(),
              t.c_str(), Json(c.text).c_str(), Json(c.source).c_str(), c.begin, c.end, Json(c.language).c_str(),
              c.meta ? "true" : "false");
}

int Run(int argc, char** argv) {
  std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "tokenize" && argc == 4) {
    auto tok = Tokenizer::FromBytes(ReadFile(argv[2]));
    std::stringstream ss(ReadFile(argv[3]));
    std::string line;
    while (std::getline(ss, line)) {
      Encoding e = tok->Encode(line);
      std::printf("{\"ids\":[");
      for (size_t i = 0; i < e.ids.size(); ++i) std::printf("%s%d", i ? "," : "", e.ids[i]);
      std::printf("],\"pieces\":[");
      for (size_t i = 0; i < e.pieces.size(); ++i) std::printf("%s%s", i ? "," : "", Json(e.pieces[i]).c_str());
      std::printf("]}\n");
    }
    return 0;
  }
  if (cmd == "chunk" && argc >= 3) {
    std::printf("[");
    bool first = true;
    for (int i = 2; i < argc; ++i) {
      for (const Chunk& c : ChunkDocument(Basename(argv[i]), ReadFile(argv[i]))) {
        if (!first) std::printf(",\n");
        PrintChunk(c);
        first = false;
      }
    }
    std::printf("]\n");
    return 0;
  }
  if (cmd == "search" && argc >= 4) {
    Collection c("dump", ModelInfo{});
    for (int i = 3; i < argc; ++i) c.Add(ChunkDocument(Basename(argv[i]), ReadFile(argv[i])));
    SearchOptions opt;
    opt.threshold = 0.f;
    std::printf("[");
    auto results = c.Search(argv[2], nullptr, 0, opt);
    for (size_t i = 0; i < results.size(); ++i) {
      std::printf("%s{\"id\":%s,\"score\":%.6f}", i ? "," : "", Json(c.chunk(results[i].label).id).c_str(),
                  results[i].score);
    }
    std::printf("]\n");
    return 0;
  }
  std::fprintf(stderr, "usage: vesper_dump tokenize MODEL FILE | chunk FILE... | search QUERY FILE...\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vesper_dump: %s\n", e.what());
    return 1;
  }
}
