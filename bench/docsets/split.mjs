// What a user sees from a split index against the pack it was cut from, on
// the real document sets of bench/docsets: each set stored as the page
// stores it, then searched whole (null) and split with each option set;
// shown@5 / ranked@5 of a relevant document and unrelated questions with
// nothing shown, per half. Results: bench/pagefind/SPLIT-TUNING.md.
//
//   bash bench/docsets/fetch.sh && node bench/docsets/split.mjs '[null,{"matchNeighbors":0},{"matchNeighbors":16}]'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createEngine } from '../../web/vesper-engine.mjs';
import { splitFiles } from '../../web/engine/split.mjs';
import { DOCSETS, loadDocs, loadQuestions } from '../../bench/docsets/sets.mjs';

const root = new URL('../../', import.meta.url).pathname;
const model = join(root, 'models/default');
const configs = JSON.parse(process.argv[2] ?? '[null,{"matchNeighbors":0},{"matchNeighbors":16}]');
const whole = await createEngine({ model });
const acc = configs.map(() => ({ dev: { shown: 0, ranked: 0, n: 0, rej: 0, u: 0 }, held: { shown: 0, ranked: 0, n: 0, rej: 0, u: 0 } }));
for (const set of DOCSETS) {
  await whole.store(set, loadDocs(set));
  const qs = loadQuestions(set);
  for (const [ci, cfg] of configs.entries()) {
    let engine = whole;
    if (cfg) {
      const dir = join(root, 'build/bench-docsets-split', set);
      rmSync(dir, { recursive: true, force: true });
      for (const { path, bytes } of splitFiles(whole.core, whole.require(set), cfg)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), bytes);
      }
      engine = await createEngine({ model });
      await engine.openSplit(pathToFileURL(`${dir}/`));
    }
    for (const q of qs) {
      const r = await engine.search(set, q.question, { k: 5, padTo: 0 });
      const shown = r.results.map((x) => x.source).slice(0, 5);
      const ranked = (r.ranked ?? [...r.results, ...r.nearMisses]).map((x) => x.source).slice(0, 5);
      const h = acc[ci][q.half === 'dev' ? 'dev' : 'held'];
      if (q.kind === 'unrelated') { h.u++; h.rej += shown.length === 0 ? 1 : 0; continue; }
      h.n++;
      h.shown += shown.some((s) => q.relevant.includes(s)) ? 1 : 0;
      h.ranked += ranked.some((s) => q.relevant.includes(s)) ? 1 : 0;
    }
    if (cfg) await engine.dispose();
  }
  whole.remove(set);
}
for (const [ci, cfg] of configs.entries()) {
  const f = (h) => `shown@5 ${(h.shown / h.n).toFixed(3)} ranked@5 ${(h.ranked / h.n).toFixed(3)} (n ${h.n}) unrel rejected ${(h.rej / h.u).toFixed(2)} (n ${h.u})`;
  console.log(JSON.stringify(cfg), 'dev', f(acc[ci].dev), '| held', f(acc[ci].held));
}
await whole.dispose();
