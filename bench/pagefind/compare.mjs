// vesper and Pagefind on the same real documentation site: git-doc 2.39.5's
// HTML pages (the 67 pages of bench/docsets' "git" set, as Debian ships them)
// indexed by each tool as a site author would, then the docset's questions
// asked of both. Reports what each finds (a relevant page among the first 5
// pages), what each downloads for the first and for a later query, and the
// time per query. A benchmark, not a test.
//
//   bash bench/docsets/fetch.sh && node bench/pagefind/compare.mjs [--markdown bench/pagefind/COMPARE.md]
//
// Pagefind is installed apart from vesper's dependencies (bench/pagefind/package.json),
// on the first run. It is searched in Chromium, as a visitor's browser runs it.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { repoRoot } from '../../tools/cli/core.mjs';
import { serve } from '../../tools/serve.mjs';
import { createEngine } from '../../web/vesper-engine.mjs';
import { loadQuestions } from '../docsets/sets.mjs';

const HERE = join(repoRoot, 'bench/pagefind');
const WORK = join(repoRoot, 'build/bench-pagefind');
const SITE = join(WORK, 'site');
const GIT_DOC = join(repoRoot, 'bench/docsets/.cache/x-git-doc/usr/share/doc/git-doc');
const K = 5;
const markdownOut = process.argv.includes('--markdown') ? process.argv[process.argv.indexOf('--markdown') + 1] : null;

// The site: the docset's pages, as HTML (bench/docsets names them NAME.md).
function buildSite() {
  if (!existsSync(GIT_DOC)) throw new Error(`${GIT_DOC} is missing: run bash bench/docsets/fetch.sh`);
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(SITE, { recursive: true });
  const pages = readdirSync(join(repoRoot, 'bench/docsets/.cache/git/docs')).map((f) => f.replace(/\.md$/, '.html'));
  for (const p of pages) copyFileSync(join(GIT_DOC, p), join(SITE, p));
  return pages;
}

function run(cmd, args, opts = {}) {
  const t = performance.now();
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'], ...opts });
  return (performance.now() - t) / 1000;
}

function pagefindBin() {
  const bin = join(HERE, 'node_modules/.bin/pagefind');
  if (!existsSync(bin)) run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: HERE });
  return bin;
}

const filesUnder = (dir) => readdirSync(dir, { recursive: true }).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
const gz = (file) => gzipSync(readFileSync(file)).length;

// Pagefind in Chromium: bytes fetched per query (as served) and its result pages.
async function askPagefind(base, questions) {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage();
  // Bytes as served (bodies as sent, headers excluded), counted when each request finishes.
  let bytes = 0, pending = 0;
  page.on('request', () => { pending++; });
  page.on('requestfailed', () => { pending--; });
  page.on('requestfinished', async (req) => {
    bytes += (await req.sizes()).responseBodySize;
    pending--;
  });
  const settled = async () => {
    while (pending > 0) await page.waitForTimeout(10);
  };
  await page.goto(`${base}/git.html`);
  await page.evaluate(async () => { window.pf = await import('/pagefind/pagefind.js'); await window.pf.init(); });
  await settled();
  const initBytes = bytes;  // the page itself, pagefind.js, its WASM and entry file
  const out = [];
  for (const q of questions) {
    const before = bytes;
    const r = await page.evaluate(async (text) => {
      const t = performance.now();
      const found = await window.pf.search(text);
      const data = await Promise.all(found.results.slice(0, 5).map((x) => x.data()));
      return { ms: performance.now() - t, urls: data.map((d) => d.url) };
    }, q.question);
    await settled();
    out.push({ ...r, pages: r.urls.map((u) => u.replace(/^\//, '').replace(/\.html$/, '.md')), bytes: bytes - before });
  }
  await browser.close();
  return { results: out, initBytes };
}

// vesper: the site pack searched by the engine the page runs; the first 5
// distinct pages of what it ranks, and of what it shows at the defaults.
async function askVesper(pack, questions) {
  const engine = await createEngine({ model: join(repoRoot, 'models/default') });
  await engine.loadPack(readFileSync(pack));
  const pageOf = (r) => r.source.replace(/#.*$/, '').replace(/^\//, '').replace(/\.html$/, '.md');
  const firstPages = (list) => [...new Set(list.map(pageOf))].slice(0, K);
  const out = [];
  for (const q of questions) {
    const t = performance.now();
    const r = await engine.search('git', q.question, { k: K, padTo: 0 });
    out.push({ ms: performance.now() - t, pages: firstPages(r.ranked), shown: firstPages(r.results) });
  }
  await engine.dispose();
  return out;
}

const rate = (xs) => (xs.length ? xs.filter(Boolean).length / xs.length : null);
const pct = (x) => (x === null ? '–' : `${Math.round(x * 100)}%`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const pages = buildSite();
  const pagefindSeconds = run(pagefindBin(), ['--site', SITE, '--output-subdir', 'pagefind'], { cwd: WORK });
  const pack = join(WORK, 'git.pack');
  const vesperSeconds = run(join(repoRoot, 'tools/vesper'), ['build', '--site', SITE, '--db', 'git', '--out', pack]);
  const questions = loadQuestions('git');
  const server = await serve([['/', SITE]]);
  const base = `http://127.0.0.1:${server.address().port}`;
  const { results: pf, initBytes } = await askPagefind(base, questions);
  server.close();
  const vs = await askVesper(pack, questions);
  const modelFiles = ['model.vtab', 'tokenizer.model', 'lexicon.tsv', 'manifest.json'].map((f) => join(repoRoot, 'models/default', f));
  const coreFiles = filesUnder(join(repoRoot, 'build-wasm/wasm')).filter((f) => /\.(wasm|mjs)$/.test(f));
  const pagefindFiles = filesUnder(join(SITE, 'pagefind'));
  const report = {
    site: { pages: pages.length, htmlBytes: pages.reduce((s, p) => s + statSync(join(SITE, p)).size, 0) },
    build: { pagefindSeconds, vesperSeconds },
    index: {
      pagefindBytes: pagefindFiles.reduce((s, f) => s + statSync(f).size, 0),
      vesperPackBytes: statSync(pack).size, vesperPackGzip: gz(pack),
      vesperModelGzip: modelFiles.reduce((s, f) => s + gz(f), 0), vesperCoreGzip: coreFiles.reduce((s, f) => s + gz(f), 0),
    },
    questions: questions.map((q, i) => ({ n: q.n, half: q.half, lang: q.lang, kind: q.kind, question: q.question, relevant: q.relevant, pagefind: pf[i], vesper: vs[i] })),
  };
  const rows = [];
  for (const [label, filter] of [['all answerable', (q) => q.kind !== 'unrelated'], ['English', (q) => q.kind === 'same'], ['asked in pt/zh', (q) => q.kind === 'cross'], ['held-out answerable', (q) => q.kind !== 'unrelated' && q.half === 'held-out']]) {
    const qs = report.questions.filter(filter);
    const hit = (list, q) => list.some((p) => q.relevant.includes(p));
    rows.push({ label, n: qs.length, pagefind: rate(qs.map((q) => hit(q.pagefind.pages, q))), vesperRanked: rate(qs.map((q) => hit(q.vesper.pages, q))), vesperShown: rate(qs.map((q) => hit(q.vesper.shown, q))) });
  }
  const unrelated = report.questions.filter((q) => q.kind === 'unrelated');
  rows.push({ label: 'unrelated: nothing listed', n: unrelated.length, pagefind: rate(unrelated.map((q) => !q.pagefind.pages.length)), vesperRanked: null, vesperShown: rate(unrelated.map((q) => !q.vesper.shown.length)) });
  report.table = rows;
  report.transfer = {
    pagefindFirstQueryBytes: report.questions[0].pagefind.bytes, pagefindMedianQueryBytes: median(report.questions.slice(1).map((q) => q.pagefind.bytes)),
    pagefindInitBytes: initBytes,
    pagefindMeanQueryBytes: report.questions.slice(1).reduce((t, q) => t + q.pagefind.bytes, 0) / (report.questions.length - 1),
  };
  report.timing = { pagefindMedianMs: median(pf.map((x) => x.ms)), vesperMedianMs: median(vs.map((x) => x.ms)) };
  writeFileSync(join(HERE, 'results.json'), JSON.stringify(report, null, 1) + '\n');
  const md = markdown(report);
  process.stdout.write(md);
  if (markdownOut) writeFileSync(markdownOut, md);
}

function markdown(r) {
  const kb = (b) => `${(b / 1024).toFixed(0)} kB`;
  const mb = (b) => `${(b / 1048576).toFixed(1)} MB`;
  const lines = [
    '# vesper and Pagefind on one real documentation site',
    '',
    `Made by \`bash bench/docsets/fetch.sh && node bench/pagefind/compare.mjs --markdown bench/pagefind/COMPARE.md\` (raw: results.json).`,
    `Site: git-doc 2.39.5's HTML, the ${r.site.pages} pages of bench/docsets' "git" set (${mb(r.site.htmlBytes)} of HTML), indexed by`,
    `\`pagefind --site\` (Pagefind 1.6.0) and \`vesper build --site\` (default model). Questions: bench/docsets/git.questions.tsv, both halves`,
    '(nothing here was tuned on them). A hit: a relevant page among the first 5 pages listed (vesper: the first 5 distinct pages of its',
    'ranking, and of what it shows at its default settings; Pagefind: its first 5 results).',
    '',
    '| questions | n | Pagefind | vesper, ranked | vesper, shown |',
    '|---|---|---|---|---|',
    ...r.table.map((x) => `| ${x.label} | ${x.n} | ${pct(x.pagefind)} | ${pct(x.vesperRanked)} | ${pct(x.vesperShown)} |`),
    '',
    '| | Pagefind | vesper |',
    '|---|---|---|',
    `| build | ${r.build.pagefindSeconds.toFixed(1)} s | ${r.build.vesperSeconds.toFixed(1)} s |`,
    `| index on disk | ${kb(r.index.pagefindBytes)} (fragments, fetched as needed) | pack ${kb(r.index.vesperPackBytes)} (${kb(r.index.vesperPackGzip)} gzip), loaded whole |`,
    `| first query downloads | ${kb(r.transfer.pagefindInitBytes)} to start (page, pagefind.js, WASM, entry) + ${kb(r.transfer.pagefindFirstQueryBytes)} | pack ${mb(r.index.vesperPackGzip)} + model ${mb(r.index.vesperModelGzip)} + core ${mb(r.index.vesperCoreGzip)} (gzip), once |`,
    `| a later query downloads (median / mean; the browser caches what it fetched) | ${kb(r.transfer.pagefindMedianQueryBytes)} / ${kb(r.transfer.pagefindMeanQueryBytes)} | nothing |`,
    `| time per query (median, after loading) | ${r.timing.pagefindMedianMs.toFixed(0)} ms (Chromium) | ${r.timing.vesperMedianMs.toFixed(0)} ms (Node, same WASM core) |`,
    '',
    'vesper downloads its whole index before the first query, and the model\'s table rows and lexicon shards its queries need (issue 20\'s index fragments are not built);',
    'Pagefind downloads kilobytes. What vesper buys with them: meaning across wording and languages (the tables above).',
    '',
    '## Where they differ (answerable questions where one finds a relevant page and the other does not)',
    '',
    '| question | relevant | Pagefind | vesper |',
    '|---|---|---|---|',
  ];
  for (const q of r.questions.filter((x) => x.kind !== 'unrelated')) {
    const p = q.pagefind.pages.some((x) => q.relevant.includes(x));
    const v = q.vesper.pages.some((x) => q.relevant.includes(x));
    if (p === v) continue;
    const list = (xs) => xs.slice(0, 3).map((x) => x.replace(/\.md$/, '')).join(', ') || '(nothing)';
    lines.push(`| ${q.question} | ${q.relevant.map((x) => x.replace(/\.md$/, '')).join(', ')} | ${p ? 'found' : list(q.pagefind.pages)} | ${v ? 'found' : list(q.vesper.pages)} |`);
  }
  return lines.join('\n') + '\n';
}

await main();
