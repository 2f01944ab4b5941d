// Translation retrieval on everyday sentences (issue 32): for each sentence
// in Portuguese or Chinese, is its English translation the nearest English
// sentence of the set, and the other way round? Through the engine's
// embedder, as every client embeds.
//
//   node bench/quality/everyday.mjs [--model ID|DIR] [--json OUT]
//
// bench/quality/everyday.tsv: 119 triples written for vesper (odd lines the
// development half, even ones held out); the public sets the goals
// name have 1,000 pairs, so accuracy here runs higher than there.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCore, repoRoot } from '../../tools/cli/core.mjs';
import { nodeEmbedder } from '../../tools/cli/models.mjs';

const { values: opt } = parseArgs({ options: { model: { type: 'string', default: 'default' }, json: { type: 'string' } } });
const LANGS = ['en', 'pt', 'zh'];

const rows = readFileSync(join(repoRoot, 'bench/quality/everyday.tsv'), 'utf8').split('\n')
  .filter((l) => l.trim() && !l.startsWith('#')).map((l) => l.split('\t'));
const halves = { dev: rows.filter((_, i) => i % 2 === 0), 'held-out': rows.filter((_, i) => i % 2 === 1), all: rows };

const core = await loadCore();
const embedder = await nodeEmbedder(core, opt.model);

async function vectorsOf(texts, lang) {
  const { vectors, dims } = await embedder.embed(texts, { kind: 'document', languages: texts.map(() => lang) });
  return { at: (i) => vectors.subarray(i * dims, (i + 1) * dims) };
}

const dot = (a, b) => a.reduce((s, x, k) => s + x * b[k], 0);

// Share of sources whose nearest target is their own translation.
function accuracy(source, target, n) {
  let right = 0;
  for (let i = 0; i < n; i++) {
    let best = -Infinity, at = -1;
    for (let j = 0; j < n; j++) {
      const s = dot(source.at(i), target.at(j));
      if (s > best) [best, at] = [s, j];
    }
    right += at === i;
  }
  return right / n;
}

const out = {};
for (const [half, set] of Object.entries(halves)) {
  const v = {};
  for (const [k, lang] of LANGS.entries()) v[lang] = await vectorsOf(set.map((r) => r[k]), lang);
  out[half] = {
    n: set.length,
    'pt-en': accuracy(v.pt, v.en, set.length), 'en-pt': accuracy(v.en, v.pt, set.length),
    'zh-en': accuracy(v.zh, v.en, set.length), 'en-zh': accuracy(v.en, v.zh, set.length),
    'pt-zh': accuracy(v.pt, v.zh, set.length),
  };
  console.log(`${half.padEnd(9)} n ${set.length}  ` + Object.entries(out[half]).filter(([k]) => k !== 'n').map(([k, x]) => `${k} ${x.toFixed(2)}`).join('  '));
}
if (opt.json) writeFileSync(opt.json, JSON.stringify({ model: embedder.info.id, ...out }, null, 2));
