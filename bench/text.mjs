// The benchmarks' multilingual text, from files a fresh clone has or Debian
// installs: the knowledge base, the default model's aligned text when it was
// rebuilt here, and the gettext catalogs of installed packages in Brazilian
// Portuguese and Simplified Chinese (each string with its English original).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const CATALOG_LOCALES = ['pt_BR', 'pt', 'zh_CN'];
const MO_MAGIC = 0x950412de;
const MIN_LINE = 20;  // shorter strings are menu items and labels

// Every string of a compiled gettext catalog (.mo): originals and translations.
function catalogStrings(path) {
  const b = readFileSync(path);
  if (b.length < 28) return [];
  const read = b.readUInt32LE(0) === MO_MAGIC ? (o) => b.readUInt32LE(o) : (o) => b.readUInt32BE(o);
  const [count, originals, translations] = [read(8), read(12), read(16)];
  const out = [];
  for (let i = 0; i < count; i++) {
    for (const table of [originals, translations]) {
      const at = table + 8 * i;
      if (at + 8 > b.length) return out;
      const [len, off] = [read(at), read(at + 4)];
      if (off + len <= b.length) for (const s of b.subarray(off, off + len).toString('utf8').split('\0')) out.push(s);
    }
  }
  return out;
}

function catalogLines(locales = CATALOG_LOCALES) {
  const lines = [];
  for (const locale of locales) {
    const dir = `/usr/share/locale/${locale}/LC_MESSAGES`;
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) {
      if (!f.endsWith('.mo')) continue;
      for (const s of catalogStrings(join(dir, f))) for (const l of s.split('\n')) lines.push(l);
    }
  }
  return lines;
}

// Distinct lines of at least MIN_LINE characters, the knowledge base first;
// pairLimit caps how much of the model's aligned text (if any) is taken.
export function multilingualText(repoRoot, seeds, { pairLimit }) {
  const lines = seeds.flatMap((f) => readFileSync(f, 'utf8').split('\n'));
  const pairs = join(repoRoot, 'build/default-model/work/pairs.tsv');
  if (existsSync(pairs)) {
    for (const l of readFileSync(pairs, 'utf8').split('\n').slice(0, pairLimit)) lines.push(...l.split('\t').slice(2));
  }
  for (const l of catalogLines()) lines.push(l);
  const distinct = [...new Set(lines.map((l) => l.trim()).filter((l) => l.length >= MIN_LINE))];
  return distinct.join('\n') + '\n';
}

// A line the default model can embed: a word of three or more Latin or Han
// letters (catalogs in other scripts give lines of pieces it never saw).
const EMBEDDABLE = /[A-Za-z\u00C0-\u024F\u4E00-\u9FFF]{3}/;
const MAX_DOC_BYTES = 2 << 20;  // compressed: larger ones are data, not prose

// The compressed text files under /usr/share/doc (changelogs, READMEs,
// licences), sorted by path.
function docLines() {
  const lines = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const st = statSync(path, { throwIfNoEntry: false });
      if (st?.isDirectory()) walk(path);
      else if (st?.isFile() && name.endsWith('.gz') && st.size < MAX_DOC_BYTES) {
        try {
          lines.push(...gunzipSync(readFileSync(path)).toString('utf8').split('\n'));
        } catch { /* not gzip text: skipped */ }
      }
    }
  };
  if (existsSync('/usr/share/doc')) walk('/usr/share/doc');
  return lines;
}

// Distinct lines of real text in many languages, about two million on this
// machine: every installed gettext catalog in every locale, then the
// compressed documentation Debian installs. For the million-vector
// benchmark (bench/million.mjs).
export function manyLines() {
  const all = [...catalogLines(existsSync('/usr/share/locale') ? readdirSync('/usr/share/locale').sort() : []), ...docLines()];
  return [...new Set(all.map((l) => l.trim()).filter((l) => l.length >= MIN_LINE && EMBEDDABLE.test(l)))];
}
