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
import { splitFiles } from '../../web/engine/split.mjs';
import { loadQuestions } from '../../bench/docsets/sets.mjs';

const root = new URL('../../', import.meta.url).pathname;
const pack = join(root, 'build/bench-pagefind-scale/site/site.pack');
const model = join(root, 'models/default');
const configs = JSON.parse(process.argv[2] ?? '[{"matchNeighbors":16}]');
const SETS = ['git', 'npm', 'debref-pt', 'debref-zh-cn'];
const qs = SETS.flatMap((s) => loadQuestions(s).filter((q) => q.kind !== 'unrelated'));
const whole = await createEngine({ model });
whole.loadPack(readFileSync(pack));
const want = [];
for (const q of qs) want.push((await whole.search('site', q.question, { k: 10, padTo: 0 })).ranked.slice(0, 10).map((r) => r.id));
for (const cfg of configs) {
  const dir = join(root, 'build/bench-pagefind-scale/split-tune');
  rmSync(dir, { recursive: true, force: true });
  const t = performance.now();
  const files = splitFiles(whole.core, whole.require('site'), cfg);
  const splitS = (performance.now() - t) / 1000;
  let mBytes = 0;
  for (const { path, bytes } of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), bytes);
    if (path.startsWith('matches/')) mBytes += bytes.length;
  }
  const parts = await createEngine({ model });
  await parts.openSplit(pathToFileURL(`${dir}/`), cfg.pages ? { pages: cfg.pages } : {});
  const db = parts.require('site');
  const acc = { dev: [0, 0, 0], held: [0, 0, 0] };
  let before = db.split.stats.bytes;
  const perQuery = [];
  for (let i = 0; i < qs.length; i++) {
    const b = (await parts.search('site', qs[i].question, { k: 10, padTo: 0 })).ranked.slice(0, 10).map((r) => r.id);
    perQuery.push(db.split.stats.bytes - before);
    before = db.split.stats.bytes;
    const a = want[i];
    const h = acc[qs[i].half === 'dev' ? 'dev' : 'held'];
    h[0] += a.length ? a.filter((id) => b.includes(id)).length / a.length : 1;
    h[1] += a.length === 0 || b[0] === a[0] ? 1 : 0;
    h[2] += 1;
  }
  perQuery.sort((x, y) => x - y);
  const f = (h) => `recall ${(h[0] / h[2]).toFixed(3)} first ${(h[1] / h[2]).toFixed(3)} (n ${h[2]})`;
  console.log(JSON.stringify(cfg), `split ${splitS.toFixed(1)} s, matches ${(mBytes / 1024).toFixed(0)} kB; dev ${f(acc.dev)}; held ${f(acc.held)}; median bytes/query ${perQuery[perQuery.length >> 1]}`);
  await parts.dispose();
}
await whole.dispose();
