// Real vectors for the HNSW benchmark: distinct lines of a text embedded by
// one of the project's models (the default one unless told), written as the
// raw float32 files bench/run.mjs feeds every engine; make_data.py --truth
// adds the exact top-10.
//
//   node bench/real_data.mjs TEXT OUT_PREFIX n nq [--model ID|DIR]
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadCore } from '../tools/cli/core.mjs';
import { nodeEmbedder } from '../tools/cli/models.mjs';

const { values: opt, positionals } = parseArgs({ allowPositionals: true, options: { model: { type: 'string', default: 'default' } } });
const [text, prefix, n, nq] = [positionals[0], positionals[1], Number(positionals[2]), Number(positionals[3])];
if (!text || !prefix || !(n > 0) || !(nq > 0)) throw new Error('usage: real_data.mjs TEXT OUT_PREFIX n nq [--model ID|DIR]');

const lines = [...new Set(readFileSync(text, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l.length >= 20))];
if (lines.length < n + nq) throw new Error(`${text} has ${lines.length} distinct lines, ${n + nq} needed`);
// Queries are lines the index does not hold: every other line after the data.
const core = await loadCore();
const embedder = await nodeEmbedder(core, opt.model);
async function embedAll(texts, kind) {
  const out = new Float32Array(texts.length * embedder.info.dims);
  for (let i = 0; i < texts.length; i += 2000) {
    const { vectors } = await embedder.embed(texts.slice(i, i + 2000), { kind });
    out.set(vectors, i * embedder.info.dims);
    process.stderr.write(`\rreal_data: ${kind} ${Math.min(i + 2000, texts.length)}/${texts.length}`);
  }
  process.stderr.write('\n');
  return out;
}
const data = await embedAll(lines.slice(0, n), 'document');
const queries = await embedAll(lines.slice(n, n + nq), 'query');
writeFileSync(`${prefix}.data.f32`, data);
writeFileSync(`${prefix}.queries.f32`, queries);
console.log(JSON.stringify({ model: embedder.info.id, dims: embedder.info.dims, n, nq }));
