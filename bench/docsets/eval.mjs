// Search quality on real documents the project did not write (Debian-shipped
// documentation, see fetch.sh), measured as a user sees it, against a plain
// document-level BM25 baseline.
//
//   node bench/docsets/eval.mjs [--set NAME] [--json OUT] [--markdown OUT.md] [--search JSON]
//
// --search: extra options passed to engine.search (e.g. '{"threshold":0.3}').
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine } from '../../web/vesper-engine.mjs';
import { repoRoot } from '../../tools/cli/core.mjs';
import { DOCSETS, loadDocs, loadQuestions } from './sets.mjs';

const K = 5;
// BM25 parameters (the usual defaults) and the title weight: a title is a
// summary the author wrote, so its words count three times.
const BM25_K1 = 1.2;
const BM25_B = 0.75;
const TITLE_BOOST = 3;
// The baseline "rejects" a question when its best document scores below this
// fraction of the query's best possible score (every query term matched with
// unbounded frequency). Fixed once, not tuned.
const BM25_REJECT_FRACTION = 0.3;

function parseArgs(argv) {
  const opts = { set: null, json: null, markdown: null, search: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--set') opts.set = argv[++i];
    else if (a === '--json') opts.json = argv[++i];
    else if (a === '--markdown') opts.markdown = argv[++i];
    else if (a === '--search') opts.search = JSON.parse(argv[++i]);
    else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

// ---- baseline: document-level BM25 ----

// Crude suffix stripping for English and Portuguese, so that "commits" and
// "commit", "partições" and "partição" meet; longest suffix first.
const SUFFIXES = [['ões', 'ão'], ['ães', 'ão'], ['ais', 'al'], ['eis', 'el'], ['ing', ''], ['ed', ''], ['es', ''], ['s', '']];
function stem(word) {
  for (const [from, to] of SUFFIXES) {
    if (word.length > from.length + 2 && word.endsWith(from)) return word.slice(0, -from.length) + to;
  }
  return word;
}

// Letters/digits runs; Han runs become character bigrams (Chinese has no
// spaces, and bigrams are the classic cheap stand-in for words).
function tokens(text) {
  const out = [];
  for (const run of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    for (const part of run.match(/\p{Script=Han}+|[^\p{Script=Han}]+/gu)) {
      if (/\p{Script=Han}/u.test(part)) {
        if (part.length === 1) out.push(part);
        for (let i = 0; i + 1 < part.length; i++) out.push(part.slice(i, i + 2));
      } else out.push(stem(part));
    }
  }
  return out;
}

// A page's title: its YAML front matter's title and description when it has
// them (both are summaries the author wrote), else its first line.
function titleAndBody(text) {
  const front = /^---\r?\n([^]*?)\r?\n---\r?\n/.exec(text);
  if (!front) {
    const [title, ...body] = text.split('\n');
    return [title, body];
  }
  const field = (name) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(front[1])?.[1].replace(/^["']|["']$/g, '') ?? '';
  return [`${field('title')} ${field('description')}`, [text.slice(front[0].length)]];
}

function bm25Index(docs) {
  const rows = docs.map(({ source, text }) => {
    const [title, body] = titleAndBody(text);
    const tf = new Map();
    const all = [...Array(TITLE_BOOST).fill(tokens(title)).flat(), ...tokens(body.join('\n'))];
    for (const t of all) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { source, tf, len: all.length };
  });
  const df = new Map();
  for (const r of rows) for (const t of r.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const avgLen = rows.reduce((s, r) => s + r.len, 0) / rows.length;
  const idf = (t) => Math.log(1 + (rows.length - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
  return { rows, avgLen, idf };
}

function bm25Search({ rows, avgLen, idf }, query) {
  const q = [...new Set(tokens(query))];
  const maxScore = q.reduce((s, t) => s + idf(t) * (BM25_K1 + 1), 0);
  const scored = rows.map((r) => {
    let score = 0;
    for (const t of q) {
      const f = r.tf.get(t) ?? 0;
      if (f) score += idf(t) * (f * (BM25_K1 + 1)) / (f + BM25_K1 * (1 - BM25_B + BM25_B * r.len / avgLen));
    }
    return { source: r.source, score };
  }).filter((d) => d.score > 0).sort((a, b) => b.score - a.score).slice(0, K);
  const rejected = !scored.length || scored[0].score < BM25_REJECT_FRACTION * maxScore;
  return { top: scored.map((d) => d.source), rejected };
}

// ---- vesper ----

async function vesperOne(engine, set, q, extra) {
  const r = await engine.search(set, q.question, { k: K, padTo: 0, ...extra });
  const shown = r.results.map((x) => x.source);
  // Everything ranked, shown or not; the engine's `ranked` is the core's list.
  const ranked = (r.ranked ?? [...r.results, ...r.nearMisses]).map((x) => x.source);
  return { shown: shown.slice(0, K), ranked: ranked.slice(0, K), answerable: r.answerable, nearMisses: r.nearMisses.map((x) => x.source) };
}

// ---- scoring ----

const hit = (list, relevant) => list.some((s) => relevant.includes(s));

function judge(q, v, b) {
  const answerable = q.kind !== 'unrelated';
  return {
    n: q.n, lang: q.lang, kind: q.kind, half: q.half, question: q.question, relevant: q.relevant,
    vesper: { ...v, shownAt5: answerable ? hit(v.shown, q.relevant) : null, rankedAt5: answerable ? hit(v.ranked, q.relevant) : null, answered: v.shown.length > 0 },
    bm25: { top: b.top, rankedAt5: answerable ? hit(b.top, q.relevant) : null, rejected: b.rejected },
  };
}

const groupOf = (r) => (r.kind === 'cross' ? `cross-${r.lang}` : r.kind);
const rate = (xs) => (xs.length ? xs.filter(Boolean).length / xs.length : null);

function summarize(rows) {
  const ans = rows.filter((r) => r.kind !== 'unrelated');
  const unrel = rows.filter((r) => r.kind === 'unrelated');
  return {
    n: rows.length,
    shownAt5: rate(ans.map((r) => r.vesper.shownAt5)),
    rankedAt5: rate(ans.map((r) => r.vesper.rankedAt5)),
    answered: rate(ans.map((r) => r.vesper.answered)),
    rejected: rate(unrel.map((r) => !r.vesper.answered)),
    bm25RankedAt5: rate(ans.map((r) => r.bm25.rankedAt5)),
    bm25Rejected: rate(unrel.map((r) => r.bm25.rejected)),
  };
}

function tableRows(set, judged) {
  const out = [];
  for (const half of ['dev', 'held-out']) {
    const rows = judged.filter((r) => r.half === half);
    out.push({ set, half, group: 'all', ...summarize(rows) });
    const groups = [...new Set(rows.map(groupOf))].sort();
    for (const g of groups) out.push({ set, half, group: g, ...summarize(rows.filter((r) => groupOf(r) === g)) });
  }
  return out;
}

const COLUMNS = [['set', 'set'], ['half', 'half'], ['group', 'group'], ['n', 'n'], ['shownAt5', 'shown@5'], ['rankedAt5', 'ranked@5'], ['answered', 'answered'], ['rejected', 'unrel. rejected'], ['bm25RankedAt5', 'BM25 ranked@5'], ['bm25Rejected', 'BM25 rejected']];
// Rates are fractions (1 = 100%): print them as percentages, counts as is.
const fmt = (key, v) => (v === null || v === undefined ? '–' : typeof v === 'string' || key === 'n' ? String(v) : `${Math.round(v * 100)}%`);

// What the table means, above it: the sets, the halves, the measures, the baseline.
const MARKDOWN_HEAD = `# Search on real documents the project did not write

Made by \`bash bench/docsets/fetch.sh && node bench/docsets/eval.mjs --markdown bench/docsets/EVAL.md --json bench/docsets/results.json\`
(the documents are downloaded from Debian and converted; only the scripts and questions are committed).

- **Sets**: \`git\` (git-doc 2.39.5: 67 pages of everyday commands and guides, English), \`debref-pt\` and \`debref-zh-cn\`
  (the Debian Reference 2.100 in Portuguese and Chinese, one document per section: 89 and 87), \`npm\` (npm 11.19.1's
  own documentation: 91 Markdown pages with YAML front matter, commands, configuration and guides, English). None is in
  the default model's training text (models/default/SOURCES.md).
- **Questions**: bench/docsets/<set>.questions.tsv, 48 per set (60 for npm) written as a user would ask: same-language, cross-lingual
  (asked in another of en/pt/zh) and unrelated ones (some sharing the documents' words). Odd numbers are the development
  half, even ones held out; no choice in the product was made on the held-out half.
- **shown@5**: a relevant document among the passages shown at the default settings (top 5); **ranked@5**: among the top 5
  ranked, shown or not; **answered**: anything shown for an answerable question; **unrel. rejected**: nothing shown for an
  unrelated one.
- **Baseline**: document-level BM25 (title x3 (with the front matter's description where a page has one), light en/pt suffix stripping, Chinese bigrams); its "rejected" is a fixed
  30% of the query's best possible score and also rejects many answerable questions, so only its ranked@5 is a fair
  comparison.
- **Methods tried** on these sets, with their effect on every measure: METHODS.md.

`;

function markdown(rows) {
  return MARKDOWN_HEAD + markdownTable(rows);
}

function markdownTable(rows) {
  const head = `| ${COLUMNS.map((c) => c[1]).join(' | ')} |\n|${COLUMNS.map(() => '---').join('|')}|\n`;
  return head + rows.map((r) => `| ${COLUMNS.map(([k]) => fmt(k, r[k])).join(' | ')} |`).join('\n') + '\n';
}

function printTable(rows) {
  const cells = [COLUMNS.map((c) => c[1]), ...rows.map((r) => COLUMNS.map(([k]) => fmt(k, r[k])))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((c) => c[i].length)));
  for (const c of cells) console.log(c.map((x, i) => x.padEnd(widths[i])).join('  '));
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const sets = opts.set ? [opts.set] : DOCSETS;
  const engine = await createEngine({ model: join(repoRoot, 'models/default') });
  if (engine.notice) console.error(engine.notice);
  const report = { model: engine.model?.id ?? null, search: opts.search, bm25: { k1: BM25_K1, b: BM25_B, titleBoost: TITLE_BOOST, rejectFraction: BM25_REJECT_FRACTION }, sets: {} };
  const table = [];
  for (const set of sets) {
    const docs = loadDocs(set);
    const questions = loadQuestions(set);
    const t0 = performance.now();
    await engine.store(set, docs);
    const storeMs = performance.now() - t0;
    const index = bm25Index(docs);
    const judged = [];
    for (const q of questions) judged.push(judge(q, await vesperOne(engine, set, q, opts.search), bm25Search(index, q.question)));
    const rows = tableRows(set, judged);
    table.push(...rows);
    report.sets[set] = { documents: docs.length, questions: questions.length, storeMs: Math.round(storeMs), rows, judged };
    console.error(`${set}: ${docs.length} documents, ${questions.length} questions, stored in ${(storeMs / 1000).toFixed(1)} s`);
  }
  printTable(table);
  if (opts.json) writeFileSync(opts.json, JSON.stringify(report, null, 2));
  if (opts.markdown) writeFileSync(opts.markdown, markdown(table));
  await engine.dispose();
}

await main();
