// Small sites: the real document sets (bench/docsets) cut into sites of a few
// pages, as a site author trying vesper on a handful of pages would build
// them, searched at the default settings. Per answerable question, a site of
// the pages that answer it and SMALL_EXTRA_PAGES others; per unrelated
// question, a site of SMALL_EXTRA_PAGES + 1 pages. Pages are drawn by a
// seeded generator, the same on every run.
//
//   node bench/docsets/small.mjs [--json OUT]
//
// Set VESPER_WASM_DIR to measure another build of the core (a "before").
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createEngine } from '../../web/vesper-engine.mjs';
import { repoRoot } from '../../tools/cli/core.mjs';
import { DOCSETS, loadDocs, loadQuestions } from './sets.mjs';

const { values: opt } = parseArgs({ options: { json: { type: 'string' } } });
const K = 5;
const SMALL_EXTRA_PAGES = 2;

// A small deterministic generator (mulberry32), seeded per question.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function siteFor(docs, q, setIndex) {
  const next = random(setIndex * 1000 + q.n);
  const chosen = docs.filter((d) => q.relevant.includes(d.source));
  const others = docs.filter((d) => !q.relevant.includes(d.source));
  const wanted = chosen.length + SMALL_EXTRA_PAGES + (chosen.length ? 0 : 1);
  while (chosen.length < wanted && others.length) chosen.push(others.splice(Math.floor(next() * others.length), 1)[0]);
  return chosen;
}

const rate = (xs) => (xs.length ? xs.filter(Boolean).length / xs.length : null);

async function main() {
  const engine = await createEngine({ model: join(repoRoot, 'models/default') });
  const rows = [];
  for (const [si, set] of DOCSETS.entries()) {
    const docs = loadDocs(set);
    for (const q of loadQuestions(set)) {
      const name = `${set}-${q.n}`;
      const site = siteFor(docs, q, si);
      await engine.store(name, site);
      const r = await engine.search(name, q.question, { k: K, padTo: 0 });
      const shown = r.results.map((x) => x.source);
      rows.push({ set, half: q.half, kind: q.kind, question: q.question,
        answered: shown.length > 0, confidence: r.confidence ?? null, evidence: r.evidence ?? null, pages: site.length, relevantShown: q.kind === 'unrelated' ? null : shown.some((s) => q.relevant.includes(s)) });
      engine.remove(name);
    }
  }
  const table = [];
  for (const set of [...DOCSETS, 'all']) {
    for (const half of ['dev', 'held-out']) {
      const mine = rows.filter((r) => (set === 'all' || r.set === set) && r.half === half);
      const ans = mine.filter((r) => r.kind !== 'unrelated');
      const unrel = mine.filter((r) => r.kind === 'unrelated');
      table.push({ set, half, answerable: ans.length, shown: rate(ans.map((r) => r.relevantShown)), answered: rate(ans.map((r) => r.answered)), unrelated: unrel.length, rejected: rate(unrel.map((r) => !r.answered)) });
    }
  }
  const pct = (v) => (v === null ? '–' : `${Math.round(v * 100)}%`);
  console.log('| set | half | answerable | relevant shown@5 | answered | unrelated | rejected |\n|---|---|---|---|---|---|---|');
  for (const t of table) console.log(`| ${t.set} | ${t.half} | ${t.answerable} | ${pct(t.shown)} | ${pct(t.answered)} | ${t.unrelated} | ${pct(t.rejected)} |`);
  if (opt.json) writeFileSync(opt.json, JSON.stringify({ table, rows }, null, 2));
  await engine.dispose();
}

await main();
