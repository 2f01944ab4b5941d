// vesper and Pagefind on a large documentation site: 10,000 generated HTML
// pages (about 50,000 passages) cut from the real documentation bench/docsets
// caches (git, npm, Debian Reference in pt and zh-CN), each page a title and
// a few sections with heading anchors. Both tools index it as a site author
// would; a visitor's browser (Chromium, cold cache, loopback server) then
// asks the same questions of both. Reports what each downloads before its
// first result and per later query, the time to the first result, and the
// time per query. A benchmark, not a test: the numbers are machine facts.
//
// vesper is measured twice: its pack loaded whole, and the same pack cut by
// `vesper split` (web/engine/split.mjs), whose page fetches per query the
// parts the core names; the split's recall@10 against the whole pack's
// ranking is measured in Node over every answerable docsets question.
//
//   bash bench/docsets/fetch.sh && node bench/pagefind/scale.mjs [--pages 10000] [--reuse] [--markdown bench/pagefind/SCALE.md]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { repoRoot } from '../../tools/cli/core.mjs';
import { serve } from '../../tools/serve.mjs';
import { loadQuestions } from '../docsets/sets.mjs';
import { createEngine } from '../../web/vesper-engine.mjs';

const HERE = join(repoRoot, 'bench/pagefind');
const WORK = join(repoRoot, 'build/bench-pagefind-scale');
const SITE = join(WORK, 'site');
const VESPER_SITE = join(repoRoot, 'build/site');  // tools/site.mjs: the engine, core and models as a site serves them
const SETS = ['git', 'npm', 'debref-pt', 'debref-zh-cn'];
const SECTIONS_PER_PAGE = 5;
const SECTION_CHARS = 500;
const QUESTIONS = 24;  // asked of both, in order: the first is the cold one
const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const PAGES = Number(arg('--pages', '10000'));
const markdownOut = arg('--markdown', null);
const REUSE = process.argv.includes('--reuse');

const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

// Paragraph-sized pieces of the cached documentation, in a fixed order.
function textPool() {
  const pool = [];
  for (const set of SETS) {
    const dir = join(repoRoot, 'bench/docsets/.cache', set, 'docs');
    if (!existsSync(dir)) throw new Error(`${dir} is missing: run bash bench/docsets/fetch.sh`);
    for (const f of readdirSync(dir).sort()) {
      const text = readFileSync(join(dir, f), 'utf8').replace(/^---[^]*?---\n/, '');
      for (const para of text.split(/\n\s*\n/)) {
        const flat = para.replace(/^#+\s*/gm, '').replace(/\s+/g, ' ').trim();
        if (flat.length >= 80) pool.push(flat.slice(0, SECTION_CHARS));
      }
    }
  }
  return pool;
}

// PAGES pages of SECTIONS_PER_PAGE sections each, cut from the pool with a
// stride so that neighbouring pages differ; each page's language from its text.
function buildSite() {
  const pool = textPool();
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(join(SITE, 'docs'), { recursive: true });
  let htmlBytes = 0;
  for (let p = 0; p < PAGES; p++) {
    const parts = Array.from({ length: SECTIONS_PER_PAGE }, (_, s) => pool[(p * 7919 + s * 104729) % pool.length]);
    const title = parts[0].split(/[.!?。]/)[0].slice(0, 60);
    const lang = /\p{Script=Han}/u.test(parts[0]) ? 'zh-CN' : /\b(de|que|para|uma|não)\b/.test(parts[0]) ? 'pt' : 'en';
    const sections = parts.map((t, s) => `<h2 id="s${s}">${escapeHtml(t.split(/[.!?。]/)[0].slice(0, 50))}</h2>\n<p>${escapeHtml(t)}</p>`).join('\n');
    const html = `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n<body><main><h1>${escapeHtml(title)}</h1>\n${sections}\n</main></body></html>\n`;
    writeFileSync(join(SITE, 'docs', `${String(p).padStart(5, '0')}.html`), html);
    htmlBytes += Buffer.byteLength(html);
  }
  writeFileSync(join(SITE, 'index.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Docs</title></head><body><main><h1>Docs</h1></main></body></html>\n');
  return { pages: PAGES, htmlBytes };
}

function run(cmd, args, opts = {}) {
  const t = performance.now();
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'], ...opts });
  return (performance.now() - t) / 1000;
}

// The docsets' English and other-language questions, interleaved.
function questions() {
  const all = SETS.flatMap((s) => loadQuestions(s).filter((q) => q.kind !== 'unrelated').map((q) => q.question));
  const out = [];
  for (let i = 0; out.length < QUESTIONS && i < all.length; i += Math.max(1, Math.floor(all.length / QUESTIONS))) out.push(all[i]);
  return out;
}

// What a request fetched, for the per-part breakdown of a query's bytes.
function partKind(path) {
  for (const [kind, re] of [['model rows', /\/rows\//], ['lexicon shards', /\/lexicon\//], ['term fragments', /\/split\/terms\//],
    ['page fragments', /\/split\/pages\//], ['match fragments', /\/split\/matches\//]]) {
    if (re.test(path)) return kind;
  }
  return 'other';
}

// A browser with its byte counter: bodies as served (compressed: the
// server gzips as static hosts do), per request finished.
async function browse() {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage();
  const meter = { bytes: 0, pending: 0, kinds: {} };
  page.on('request', () => { meter.pending++; });
  page.on('requestfailed', () => { meter.pending--; });
  page.on('requestfinished', async (req) => {
    const size = (await req.sizes()).responseBodySize;  // encoded: the bytes that crossed
    meter.bytes += size;
    const kind = partKind(new URL(req.url()).pathname);
    meter.kinds[kind] = (meter.kinds[kind] ?? 0) + size;
    meter.pending--;
  });
  meter.settled = async () => {
    while (meter.pending > 0) await page.waitForTimeout(10);
  };
  return { browser, page, meter };
}

// One tool in a fresh browser: `start` loads it, `ask` runs one query in
// the page and resolves to the number of results. The first query's time
// counts from navigation (cold cache): what a visitor waits for.
async function measure(base, qs, start, ask) {
  const { browser, page, meter } = await browse();
  const t0 = Date.now();
  await page.goto(`${base}/index.html`);
  await page.evaluate(start);
  const first = await page.evaluate(ask, qs[0]);
  await meter.settled();
  const firstResultMs = Date.now() - t0;
  const firstBytes = meter.bytes;
  const later = [];
  for (const q of qs.slice(1)) {
    const before = meter.bytes;
    const kindsBefore = { ...meter.kinds };
    const t = Date.now();
    const n = await page.evaluate(ask, q);
    await meter.settled();
    const kinds = Object.fromEntries(Object.entries(meter.kinds).map(([k, v]) => [k, v - (kindsBefore[k] ?? 0)]).filter(([, v]) => v > 0));
    later.push({ ms: Date.now() - t, bytes: meter.bytes - before, kinds, results: n });
  }
  await browser.close();
  return { firstResultMs, firstBytes, firstResults: first, later };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const filesUnder = (dir) => readdirSync(dir, { recursive: true }).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());

async function main() {
  if (!existsSync(join(VESPER_SITE, 'vesper-engine.bundle.mjs'))) throw new Error('build/site is missing: run node tools/site.mjs');
  const pack = join(SITE, 'site.pack');
  // --reuse: the site, Pagefind's index and the pack of the last run (their build times from scale.json).
  const reused = REUSE && existsSync(pack) ? JSON.parse(readFileSync(join(HERE, 'scale.json'), 'utf8')) : null;
  const site = reused ? { pages: reused.site.pages, htmlBytes: reused.site.htmlBytes } : buildSite();
  const pagefindBin = join(HERE, 'node_modules/.bin/pagefind');
  if (!existsSync(pagefindBin)) run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: HERE });
  const pagefindSeconds = reused?.build.pagefindSeconds ?? run(pagefindBin, ['--site', SITE, '--output-subdir', 'pagefind'], { cwd: WORK });
  const vesperSeconds = reused?.build.vesperSeconds ?? run(join(repoRoot, 'tools/vesper'), ['build', '--site', SITE, '--db', 'site', '--out', pack]);
  const passages = JSON.parse(execFileSync(join(repoRoot, 'tools/vesper'), ['inspect', pack, '--json'], { encoding: 'utf8' })).collections[0].chunks;
  const qs = questions();
  const server = await serve([['/vesper/', VESPER_SITE], ['/', SITE]], { gzip: true });
  const base = `http://127.0.0.1:${server.address().port}`;
  const pagefind = await measure(base, qs,
    async () => { window.pf = await import('/pagefind/pagefind.js'); await window.pf.init(); },
    async (text) => {
      const found = await window.pf.search(text);
      return (await Promise.all(found.results.slice(0, 5).map((x) => x.data()))).length;
    });
  const vesper = await measure(base, qs,
    async () => {
      const { createEngine } = await import('/vesper/vesper-engine.bundle.mjs');
      window.engine = await createEngine({ model: '/vesper/models/default/' });
      window.engine.loadPack(new Uint8Array(await (await fetch('/site.pack')).arrayBuffer()));
    },
    async (text) => (await window.engine.search('site', text, { k: 5, padTo: 0 })).ranked.length);
  const splitDir = join(SITE, 'split');
  const splitSeconds = run(join(repoRoot, 'tools/vesper'), ['split', pack, '--out', splitDir]);
  const split = await measure(base, qs,
    async () => {
      const { createEngine } = await import('/vesper/vesper-engine.bundle.mjs');
      window.engine = await createEngine({ model: '/vesper/models/default/' });
      await window.engine.openSplit('/split/');
    },
    async (text) => (await window.engine.search('site', text, { k: 5, padTo: 0 })).ranked.length);
  server.close();
  const recall = await splitRecall(pack, splitDir);
  const gz = (f) => gzipSync(readFileSync(f)).length;
  const report = {
    date: new Date().toISOString(), site: { ...site, passages }, questions: qs,
    build: { pagefindSeconds, vesperSeconds, splitSeconds },
    index: {
      pagefindBytes: filesUnder(join(SITE, 'pagefind')).reduce((s, f) => s + statSync(f).size, 0),
      vesperPackBytes: statSync(pack).size, vesperPackGzip: gz(pack),
      splitBytes: filesUnder(splitDir).reduce((s, f) => s + statSync(f).size, 0),
      splitEntryBytes: statSync(join(splitDir, 'index.vsx')).size, splitFiles: filesUnder(splitDir).length,
    },
    pagefind: summary(pagefind), vesper: summary(vesper), split: { ...summary(split), ...recall },
  };
  writeFileSync(join(HERE, 'scale.json'), JSON.stringify(report, null, 1) + '\n');
  const md = markdown(report);
  process.stdout.write(md);
  if (markdownOut) writeFileSync(markdownOut, md);
}

// The split's ranking against the whole pack's, per question: the share of
// the pack's top 10 that the split's top 10 holds, and whether the first
// result is the same; every answerable docsets question, in Node, per half
// (the split's options were chosen on the development half).
async function splitRecall(pack, dir) {
  const model = join(repoRoot, 'models/default');
  const whole = await createEngine({ model });
  whole.loadPack(readFileSync(pack));
  const parts = await createEngine({ model });
  await parts.openSplit(pathToFileURL(`${dir}/`));
  const qs = SETS.flatMap((s) => loadQuestions(s).filter((q) => q.kind !== 'unrelated'));
  const blank = () => ({ recall: 0, byText: 0, first: 0, n: 0 });
  const halves = { all: blank(), dev: blank(), 'held-out': blank() };
  const share = (a, b) => (a.length ? a.filter((x) => b.includes(x)).length / a.length : 1);
  for (const q of qs) {
    const a = (await whole.search('site', q.question, { k: 10, padTo: 0 })).ranked.slice(0, 10);
    const b = (await parts.search('site', q.question, { k: 10, padTo: 0 })).ranked.slice(0, 10);
    for (const h of [halves.all, halves[q.half]]) {
      h.recall += share(a.map((r) => r.id), b.map((r) => r.id));
      // The site repeats each source paragraph on ~10 pages: by text, any copy counts.
      h.byText += share(a.map((r) => r.text), b.map((r) => r.text));
      h.first += a.length === 0 || b[0].id === a[0].id ? 1 : 0;
      h.n += 1;
    }
  }
  const passagesFetched = parts.require('site').size;
  await whole.dispose();
  await parts.dispose();
  const rate = (h) => ({ recallAt10: h.recall / h.n, recallByText: h.byText / h.n, sameFirst: h.first / h.n, n: h.n });
  return { ...rate(halves.all), recallQuestions: qs.length, dev: rate(halves.dev), heldOut: rate(halves['held-out']), passagesFetched };
}

// Mean bytes per later query, per kind of part.
function meanKinds(later) {
  const sum = {};
  for (const x of later) for (const [k, v] of Object.entries(x.kinds)) sum[k] = (sum[k] ?? 0) + v;
  return Object.fromEntries(Object.entries(sum).map(([k, v]) => [k, Math.round(v / later.length)]));
}

function summary(m) {
  return {
    firstResultMs: m.firstResultMs, firstBytes: m.firstBytes, firstResults: m.firstResults,
    laterMedianBytes: median(m.later.map((x) => x.bytes)), laterMaxBytes: Math.max(...m.later.map((x) => x.bytes)),
    laterKindsMean: meanKinds(m.later),
    laterMedianMs: median(m.later.map((x) => x.ms)), answeredLater: m.later.filter((x) => x.results > 0).length, laterQueries: m.later.length,
  };
}

function markdown(r) {
  const kb = (b) => `${(b / 1024).toFixed(0)} kB`;
  const mb = (b) => `${(b / 1048576).toFixed(1)} MB`;
  const size = (b) => (b >= 1048576 ? mb(b) : kb(b));
  const row = (label, f) => `| ${label} | ${f(r.pagefind)} | ${f(r.vesper)} | ${f(r.split)} |`;
  return [
    `# vesper and Pagefind on a ${r.site.pages.toLocaleString('en')}-page site`,
    '',
    'Made by `bash bench/docsets/fetch.sh && node bench/pagefind/scale.mjs --markdown bench/pagefind/SCALE.md` (raw: scale.json),',
    `${r.date.slice(0, 10)}, on this project's 2-core machine, Chromium with a cold cache over a loopback server that compresses`,
    'as static hosts do (`tools/serve.mjs --gzip`: gzip level 6, every type but images, where it makes a body smaller): bytes',
    'are counted as they crossed, compressed. (Before 2026-12-07 the server did not compress and the tables counted raw bytes.)',
    '',
    `Site: ${r.site.pages.toLocaleString('en')} generated HTML pages (${mb(r.site.htmlBytes)}), each a title and ${SECTIONS_PER_PAGE} anchored sections cut`,
    `from the documentation bench/docsets caches (git, npm, Debian Reference pt and zh-CN): ${r.site.passages.toLocaleString('en')} vesper passages.`,
    `Questions: ${r.questions.length} of bench/docsets' answerable questions (en, pt, zh), the same, in the same order, for all three.`,
    '',
    '| | Pagefind 1.6.0 | vesper, pack loaded whole | vesper, split index (`vesper split`) |',
    '|---|---|---|---|',
    `| build | ${r.build.pagefindSeconds.toFixed(1)} s | ${r.build.vesperSeconds.toFixed(1)} s | + ${r.build.splitSeconds.toFixed(1)} s to split |`,
    `| index on disk | ${mb(r.index.pagefindBytes)} (fragments) | ${mb(r.index.vesperPackBytes)} (${mb(r.index.vesperPackGzip)} gzip) | ${mb(r.index.splitBytes)} in ${r.index.splitFiles.toLocaleString('en')} files (entry ${kb(r.index.splitEntryBytes)}) |`,
    row('downloaded before the first result, compressed as served', (x) => size(x.firstBytes)),
    row('first result, from navigation (cold cache)', (x) => `${(x.firstResultMs / 1000).toFixed(2)} s`),
    row('a later query downloads, compressed as served (median / largest)', (x) => `${kb(x.laterMedianBytes)} / ${kb(x.laterMaxBytes)}`),
    row('a later query takes (median, in the page)', (x) => `${x.laterMedianMs} ms`),
    row('later queries with any result', (x) => `${x.answeredLater} of ${x.laterQueries}`),
    '',
    `The split index against the whole pack, over all ${r.split.recallQuestions} answerable docsets questions (in Node, one page`,
    `asking them all in turn): recall@10 of the pack's ranking ${r.split.recallAt10.toFixed(3)} by passage (${r.split.recallByText.toFixed(3)} counting`,
    `any copy of the same text: the site repeats each source paragraph on ~10 pages), the same first result for`,
    `${(100 * r.split.sameFirst).toFixed(0)}% (development half ${r.split.dev.recallAt10.toFixed(3)} / ${r.split.dev.recallByText.toFixed(3)} / ${(100 * r.split.dev.sameFirst).toFixed(0)}%, held-out half`,
    `${r.split.heldOut.recallAt10.toFixed(3)} / ${r.split.heldOut.recallByText.toFixed(3)} / ${(100 * r.split.heldOut.sameFirst).toFixed(0)}%; the split's options were chosen on the development half); after all of`,
    `them the page held ${r.split.passagesFetched.toLocaleString('en')} of the ${r.site.passages.toLocaleString('en')} passages.`,
    `A later query's bytes, mean per kind of part (compressed): ${Object.entries(r.split.laterKindsMean).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${kb(v)}`).join(', ')}.`,
    '',
    "Issue 20's goals for vesper on such a site: first query <= 1 MB in all (compressed as served), later queries <= 100 kB,",
    'recall@10 >= 0.95 of the in-memory search, first result <= 1.5 s. The split index fetches, per query, the term fragments',
    "of the query's words and their translations and the match fragments of its model pieces, then the pages those words",
    "weigh most in (core/collection/split.h); the model's rows and lexicon come in parts as queries need them",
    '(web/engine/on-demand.mjs). Relevance on real questions: bench/pagefind/COMPARE.md.',
    '',
    'What the split index does not reach yet, and why:',
    "- **The first query's download** is mostly the engine itself: the core (1.3 MB, 0.47 MB gzip) and the tokenizer",
    '  (0.78 MB, 0.40 MB gzip); its own parts are ~300 kB (entry 30 kB, term, match and page fragments, 16 row blocks of',
    "  4 kB, lexicon shards). Until session 44 it also downloaded the model's whole table (8.3 MB): piece matching needed",
    "  the rows of every fetched passage's pieces. Match fragments (`matches/`, core/search/piece_neighbors.h) now carry each",
    "  model piece's 16 nearest pieces among the site's with their cosines, and a floor per set size for the others, so a",
    "  query needs the rows of its own pieces only. Measured with bench/docsets (4 real sets, each split with 16 neighbours):",
    '  what a user sees equals the pack (shown@5 development 0.738 both, held-out 0.663 both).',
    "- **Recall of the pack's ranking**: pages are chosen by their BM25 over the query's words, while the pack's first",
    '  results are often passages piece matching lifts from lexical rank 10-50 or that only the vectors find, and piece',
    '  matching through neighbour lists ranks close to, not exactly as, the rows (bench/pagefind/SPLIT-TUNING.md). Passage-level',
    '  candidates (the top lexical passages, not pages) and vector partitions (bench/pagefind/IVF.md) are what would close',
    '  it. The site repeats its source paragraphs on ~10 pages each, so part of the gap is which copy of the same text ranks',
    "  first. Tried and dropped: adding each page's best passage's BM25 weight to its page weight when choosing pages.",
    '',
  ].join('\n');
}

await main();
