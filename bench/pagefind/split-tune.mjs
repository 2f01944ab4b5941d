// Split options against the whole pack on the 10,000-page benchmark site
// (bench/pagefind/scale.mjs builds it): per option set, the split's recall@10
// of the pack's ranking and how often its first result is the pack's, per
// half of the docsets' answerable questions, and the split parts a query
// downloads (median; model rows and lexicon shards not counted). Results:
// bench/pagefind/SPLIT-TUNING.md.
//
//   node bench/pagefind/split-tune.mjs '[{"matchNeighbors":16},{"pageFragmentBytes":512,"pages":24}]'
//
// Options: splitCollection's (termFragmentBytes, pageFragmentBytes,
// pagesPerTerm, matchNeighbors, matchFragmentPieces) and `pages` (candidate
// pages per query).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createEngine } from '../../web/vesper-engine.mjs';
import { gzipSync } from 'node:zlib';
import { partPath, splitFiles } from '../../web/engine/split.mjs';
import { loadQuestions } from '../../bench/docsets/sets.mjs';

const root = new URL('../../', import.meta.url).pathname;
const pack = join(root, 'build/bench-pagefind-scale/site/site.pack');
const model = join(root, 'models/default');
const siteModelDir = process.env.MODEL_PARTS_DIR ?? join(root, 'build/site/models/default');  // a copy with other block sizes
const siteModel = pathToFileURL(`${siteModelDir}/`).href;
const gzCache = new Map();
// A model part's bytes as a compressing server sends them (rows/<n>.vrow, lexicon/<name>.tsv).
const modelPartGz = (name) => {
  if (!gzCache.has(name)) {
    const path = join(siteModelDir, name.endsWith('.vrow') ? 'rows' : 'lexicon', name);
    const bytes = readFileSync(path);
    gzCache.set(name, Math.min(bytes.length, gzipSync(bytes).length));
  }
  return gzCache.get(name);
};
const configs = JSON.parse(process.argv[2] ?? '[{"matchNeighbors":16}]');
const SETS = ['git', 'npm', 'debref-pt', 'debref-zh-cn'];
const qs = SETS.flatMap((s) => loadQuestions(s).filter((q) => q.kind !== 'unrelated'));
const whole = await createEngine({ model });
whole.loadPack(readFileSync(pack));
const want = [];
for (const q of qs) want.push((await whole.search('site', q.question, { k: 10, padTo: 0 })).ranked.slice(0, 10));
const share = (a, b) => (a.length ? a.filter((x) => b.includes(x)).length / a.length : 1);
for (const cfg of configs) {
  const dir = join(root, 'build/bench-pagefind-scale/split-tune');
  rmSync(dir, { recursive: true, force: true });
  const t = performance.now();
  const files = splitFiles(whole.core, whole.require('site'), cfg);
  const splitS = (performance.now() - t) / 1000;
  let mBytes = 0;
  const gz = new Map();  // part path -> bytes as a compressing server sends them
  for (const { path, bytes } of files) {
    gz.set(path, Math.min(bytes.length, gzipSync(bytes).length));
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), bytes);
    if (path.startsWith('matches/')) mBytes += bytes.length;
  }
  // The model as the site serves it (rows in blocks, the lexicon in shards),
  // so a query's model parts are counted as a page would fetch them.
  const modelParts = [];
  const parts = await createEngine({
    model: siteModel,
    onProgress: (p) => { if (p.stage === 'download' && p.done === p.total) modelParts.push(p.label.split(': ').pop()); },
  });
  let modelSeen = modelParts.length;
  await parts.openSplit(pathToFileURL(`${dir}/`), cfg.pages ? { pages: cfg.pages } : {});
  const db = parts.require('site');
  const acc = { dev: [0, 0, 0, 0], held: [0, 0, 0, 0] };
  let before = db.split.stats.bytes;
  let seen = db.split.stats.names.length;
  const perQuery = [];
  const perQueryGz = [];
  const perQueryAll = [];  // with the model's rows and lexicon shards
  for (let i = 0; i < qs.length; i++) {
    const b = (await parts.search('site', qs[i].question, { k: 10, padTo: 0 })).ranked.slice(0, 10);
    perQuery.push(db.split.stats.bytes - before);
    const splitGz = db.split.stats.names.slice(seen).reduce((s, name) => s + gz.get(partPath(name)), 0);
    const modelGz = modelParts.slice(modelSeen).reduce((s, name) => s + modelPartGz(name), 0);
    modelSeen = modelParts.length;
    perQueryGz.push(splitGz);
    perQueryAll.push(splitGz + modelGz);
    before = db.split.stats.bytes;
    seen = db.split.stats.names.length;
    const a = want[i];
    const h = acc[qs[i].half === 'dev' ? 'dev' : 'held'];
    h[0] += share(a.map((r) => r.id), b.map((r) => r.id));
    // The benchmark site repeats each source paragraph on ~10 pages: by text, any copy counts.
    h[1] += share(a.map((r) => r.text), b.map((r) => r.text));
    h[2] += a.length === 0 || b[0].id === a[0].id ? 1 : 0;
    h[3] += 1;
  }
  const mid = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  const f = (h) => `recall ${(h[0] / h[3]).toFixed(3)} by text ${(h[1] / h[3]).toFixed(3)} first ${(h[2] / h[3]).toFixed(3)} (n ${h[3]})`;
  console.log(JSON.stringify(cfg), `split ${splitS.toFixed(1)} s, matches ${(mBytes / 1024).toFixed(0)} kB; dev ${f(acc.dev)}; held ${f(acc.held)}; median bytes/query ${mid(perQuery)} (gzip ${mid(perQueryGz)}; with model parts, gzip: median ${mid(perQueryAll)}, 90th ${[...perQueryAll].sort((x, y) => x - y)[Math.floor(perQueryAll.length * 0.9)]}, largest ${Math.max(...perQueryAll)})`);
  await parts.dispose();
}
await whole.dispose();
