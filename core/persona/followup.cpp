#include "core/persona/followup.h"

#include <string>
#include <vector>

#include "core/persona/text_match.h"

namespace vesper {

namespace {

struct Phrases {
  FollowUp kind;
  std::vector<const char*> phrases;
};

// Compared by CommandKey (folded, without spaces or punctuation).
const std::vector<Phrases>& Table() {
  static const std::vector<Phrases> kTable = {
      {FollowUp::kWhy,
       {"why", "why is that", "why so", "how come", "why not", "why does that matter", "why did you", "why was that",
        "por que", "por que isso", "por que nao", "por que assim", "qual o motivo", "qual a razao",
        "\xE4\xB8\xBA\xE4\xBB\x80\xE4\xB9\x88", "\xE4\xB8\xBA\xE5\x95\xA5", "\xE4\xB8\xBA\xE4\xBD\x95",  // 为什么 为啥 为何
        "\xE6\x80\x8E\xE4\xB9\x88\xE8\xAF\xB4", "\xE5\x8E\x9F\xE5\x9B\xA0\xE6\x98\xAF\xE4\xBB\x80\xE4\xB9\x88"}},  // 怎么说 原因是什么
      {FollowUp::kExample,
       {"example", "an example", "for example", "for instance", "such as", "like what", "give me an example",
        "give an example", "can you give an example", "can you give me an example", "could you give an example",
        "could you give me an example", "show me an example", "do you have an example", "any examples", "examples",
        "exemplo", "um exemplo", "por exemplo", "tipo o que", "como o que", "pode dar um exemplo", "me da um exemplo",
        "da um exemplo", "tem um exemplo", "voce pode dar um exemplo", "consegue dar um exemplo",
        "\xE4\xB8\xBE\xE4\xB8\xAA\xE4\xBE\x8B\xE5\xAD\x90", "\xE8\x83\xBD\xE4\xB8\xBE\xE4\xB8\xAA\xE4\xBE\x8B\xE5\xAD\x90",  // 举个例子 能举个例子
        "\xE5\x8F\xAF\xE4\xBB\xA5\xE4\xB8\xBE\xE4\xB8\xAA\xE4\xBE\x8B\xE5\xAD\x90", "\xE6\xAF\x94\xE5\xA6\x82",  // 可以举个例子 比如
        "\xE4\xBE\x8B\xE5\xA6\x82", "\xE6\xAF\x94\xE5\xA6\x82\xE8\xAF\xB4", "\xE6\x9C\x89\xE4\xBE\x8B\xE5\xAD\x90",  // 例如 比如说 有例子
        "\xE4\xB8\xBE\xE4\xBE\x8B", "\xE4\xB8\xBE\xE4\xB8\xAA\xE4\xBE\x8B"}},  // 举例 举个例
      {FollowUp::kMore,
       {"and then", "then what", "what then", "what happened next", "what happened then", "what next", "next",
        "tell me more", "more", "go on", "continue", "keep going", "what else", "anything else", "elaborate",
        "can you elaborate", "say more", "how does that work", "how does it work", "how so", "how", "and after that",
        "what came next", "e depois", "e entao", "e ai", "me conta mais", "conta mais", "fala mais", "mais",
        "continue", "continua", "e ai o que aconteceu", "o que aconteceu depois", "o que veio depois",
        "como isso funciona", "como funciona", "como assim", "pode explicar melhor", "explica melhor",
        "\xE7\x84\xB6\xE5\x90\x8E", "\xE5\x90\x8E\xE6\x9D\xA5", "\xE7\xBB\xA7\xE7\xBB\xAD",  // 然后 后来 继续
        "\xE5\x86\x8D\xE5\xA4\x9A\xE8\xAF\xB4\xE4\xB8\x80\xE7\x82\xB9", "\xE5\xA4\x9A\xE8\xAF\xB4\xE4\xB8\x80\xE7\x82\xB9",  // 再多说一点 多说一点
        "\xE8\xBF\x98\xE6\x9C\x89", "\xE5\x85\xB7\xE4\xBD\x93\xE8\xAF\xB4\xE8\xAF\xB4", "\xE5\xB1\x95\xE5\xBC\x80\xE8\xAF\xB4\xE8\xAF\xB4",  // 还有 具体说说 展开说说
        "\xE8\xAF\xA6\xE7\xBB\x86\xE8\xAF\xB4\xE8\xAF\xB4", "\xE8\xBF\x99\xE6\x98\xAF\xE6\x80\x8E\xE4\xB9\x88\xE5\x81\x9A\xE5\x88\xB0\xE7\x9A\x84",  // 详细说说 这是怎么做到的
        "\xE6\x80\x8E\xE4\xB9\x88\xE5\x81\x9A\xE5\x88\xB0\xE7\x9A\x84", "\xE6\x80\x8E\xE4\xB9\x88\xE5\x81\x9A\xE5\x88\xB0",  // 怎么做到的 怎么做到
        "\xE6\x80\x8E\xE4\xB9\x88\xE5\xAE\x9E\xE7\x8E\xB0\xE7\x9A\x84", "\xE6\x8E\xA5\xE4\xB8\x8B\xE6\x9D\xA5\xE5\x91\xA2"}},  // 怎么实现的 接下来呢
  };
  return kTable;
}

// Words around a follow-up that do not change it.
const std::vector<const char*>& Leads() {
  static const std::vector<const char*> kLeads = {
      "and", "so", "ok", "okay", "but", "hmm", "interesting", "cool", "e", "mas", "entao", "certo", "legal", "hum",
      "\xE9\x82\xA3", "\xE9\x82\xA3\xE4\xB9\x88", "\xE5\xA5\xBD\xE7\x9A\x84", "\xE5\x97\xAF", "\xE9\x82\xA3\xE4\xBD\xA0",  // 那 那么 好的 嗯 那你
      "\xE5\x8F\xAF\xE4\xBB\xA5", "\xE8\xAF\xB7", "\xE4\xBD\xA0"};  // 可以 请 你
  return kLeads;
}
const std::vector<const char*>& Tails() {
  static const std::vector<const char*> kTails = {
      "please", "then", "exactly", "por favor", "entao", "exatamente", "\xE5\x91\xA2", "\xE5\x90\x97", "\xE5\x95\x8A",
      "\xE5\x90\xA7", "\xE4\xB8\x80\xE4\xB8\x8B"};  // 呢 吗 啊 吧 一下
  return kTails;
}

bool StripOne(std::string& key, const std::vector<const char*>& words, bool lead) {
  for (const char* w : words) {
    const std::string k = CommandKey(w);
    if (k.empty() || k.size() >= key.size()) continue;
    const bool at = lead ? key.compare(0, k.size(), k) == 0 : key.compare(key.size() - k.size(), k.size(), k) == 0;
    if (!at) continue;
    key = lead ? key.substr(k.size()) : key.substr(0, key.size() - k.size());
    return true;
  }
  return false;
}

FollowUp Lookup(const std::string& key) {
  for (const Phrases& p : Table()) {
    for (const char* phrase : p.phrases) {
      if (key == CommandKey(phrase)) return p.kind;
    }
  }
  return FollowUp::kNone;
}

}  // namespace

FollowUp ParseFollowUp(std::string_view question) {
  constexpr int kMaxFillers = 3;
  std::string key = CommandKey(question);
  for (int i = 0; i <= kMaxFillers && !key.empty(); ++i) {
    if (FollowUp f = Lookup(key); f != FollowUp::kNone) return f;
    std::string lead = key, tail = key;
    const bool l = StripOne(lead, Leads(), true), t = StripOne(tail, Tails(), false);
    if (l && Lookup(lead) != FollowUp::kNone) return Lookup(lead);
    if (t && Lookup(tail) != FollowUp::kNone) return Lookup(tail);
    if (!l && !t) break;
    key = l ? lead : tail;
    if (l && t) StripOne(key, Tails(), false);
  }
  return FollowUp::kNone;
}

}  // namespace vesper
