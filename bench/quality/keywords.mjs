// Keyword queries on the default knowledge base (bench/quality/keywords.tsv):
// what a person who types one to three words into the page's search box sees
// at the default settings. Answerable: a relevant passage shown in the top 5,
// anything shown; unrelated: nothing shown.
//
//   node bench/quality/keywords.mjs [--json OUT]
//
// Set VESPER_WASM_DIR to measure another build of the core (a "before").
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCore, repoRoot } from '../../tools/cli/core.mjs';
import { nodeEmbedder } from '../../tools/cli/models.mjs';
import { indexKnowledgeBase } from './kb-index.mjs';
import { isRelevant } from './questions.mjs';
import { userView } from './view.mjs';

const { values: opt } = parseArgs({ options: { json: { type: 'string' } } });
const SHOWN = 5;

const rows = readFileSync(join(repoRoot, 'bench/quality/keywords.tsv'), 'utf8').split('\n')
  .filter((l) => l.trim() && !l.startsWith('#')).map((l) => {
    const [id, lang, markers, query] = l.split('\t');
    const n = Number(id.slice(3));
    return { id, lang, query, markers: markers === '-' ? [] : markers.toLowerCase().split('|'), half: n % 2 ? 'dev' : 'held-out' };
  });

const core = await loadCore();
const embedder = await nodeEmbedder(core, 'default');
const ctx = await indexKnowledgeBase(core, embedder);
const qv = await embedder.embed(rows.map((r) => r.query), { kind: 'query' });
const judged = rows.map((r, i) => {
  const view = userView(ctx, r.query, qv.vectors.subarray(i * qv.dims, (i + 1) * qv.dims));
  const shown = view.shown.slice(0, SHOWN).map((x) => ctx.byId.get(x.id));
  return { ...r, shown: shown.length, relevant: r.markers.length ? shown.some((c) => isRelevant(r, c)) : null, confidence: view.evidence?.confidence };
});
const rate = (xs) => (xs.length ? (xs.filter(Boolean).length / xs.length).toFixed(2) : '-');
console.log('| half | answerable | relevant shown@5 | answered | unrelated | rejected |\n|---|---|---|---|---|---|');
for (const half of ['dev', 'held-out', 'all']) {
  const mine = judged.filter((r) => half === 'all' || r.half === half);
  const ans = mine.filter((r) => r.markers.length);
  const unrel = mine.filter((r) => !r.markers.length);
  console.log(`| ${half} | ${ans.length} | ${rate(ans.map((r) => r.relevant))} | ${rate(ans.map((r) => r.shown > 0))} | ${unrel.length} | ${rate(unrel.map((r) => r.shown === 0))} |`);
}
if (opt.json) writeFileSync(opt.json, JSON.stringify(judged, null, 2));
