// Chooses the persona's unit weights (core/persona/answer.h UnitWeights) on
// the development half only: every combination of the grid below is scored
// by the share of answerable dev questions answered with their facts, and
// the best few are printed. The held-out half is never read here.
//
//   node bench/persona/tune.mjs
import { repoRoot } from '../../tools/cli/core.mjs';
import { openPersona } from './eval.mjs';
import { readPersonaSet, hasFact } from './set.mjs';

const GRID = {
  shared: [0.6, 1.0, 1.5],
  passage: [0, 0.5, 1.0],
  minShared: [0.1, 0.2],
  secondRatio: [0.5, 0.6, 0.75],
  otherLanguage: [0, 0.3, 0.6],
};

function* combinations(grid) {
  const keys = Object.keys(grid);
  const at = keys.map(() => 0);
  for (;;) {
    yield Object.fromEntries(keys.map((k, i) => [k, grid[k][at[i]]]));
    let i = 0;
    while (i < keys.length && ++at[i] === grid[keys[i]].length) at[i++] = 0;
    if (i === keys.length) return;
  }
}

const p = await openPersona();
const items = readPersonaSet(repoRoot).filter((i) => i.split === 'dev' && i.kind === 'answerable');
const vectors = [];
for (const it of items) vectors.push((await p.embedder.embed([it.question], { kind: 'query' })).vectors);
const scored = [];
for (const weights of combinations(GRID)) {
  let pass = 0;
  items.forEach((it, i) => {
    const r = p.persona.answer(p.db, it.question, vectors[i], {}, { weights });
    if (r.kind === 'answer' && it.facts.every((f) => hasFact(r.answer, f))) pass++;
  });
  scored.push({ pass: pass / items.length, weights });
}
scored.sort((a, b) => b.pass - a.pass);
for (const s of scored.slice(0, 12)) console.log(s.pass.toFixed(3), JSON.stringify(s.weights));
