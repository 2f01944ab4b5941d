// Inference parity on the project's test models: ONNX Runtime node, ONNX
// Runtime web (its node build, wasm EP) and the core's own static-model
// runner, each against the torch outputs committed with the models.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import * as ortWeb from 'onnxruntime-web';
import ortNode from 'onnxruntime-node';
import { createEmbedder } from '../../web/engine/embedder.mjs';
import { fileReader, resolveModel } from '../../tools/cli/models.mjs';
import { loadCore, root } from './helpers.mjs';

let core;
before(async () => {
  core = await loadCore();
  ortWeb.env.logLevel = 'error';
  ortWeb.env.wasm.numThreads = 1;
});

const reference = (id) => JSON.parse(readFileSync(join(root, 'models/test', id, 'reference.json'), 'utf8'));

function maxAbsDiff(a, b) {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

async function embedder(id, runtime, extra = {}) {
  const model = resolveModel(id);
  const { manifest } = model;
  const readFile = fileReader(model);
  if (runtime === 'core') return createEmbedder({ core, manifest, readFile, ...extra });
  const ort = runtime === 'node' ? ortNode : ortWeb;
  return createEmbedder({
    core, manifest, readFile, ort, useStaticCore: false,
    executionProviders: runtime === 'node' ? ['cpu'] : ['wasm'],
    resolvePath: runtime === 'node' ? (p) => join(model.dir, p) : null,
    ...extra,
  });
}

// Embeds the reference texts without prompts, in one padded batch.
async function embedReference(e, rows) {
  e.info.documentTemplate = '{text}';
  const out = await e.embed(rows.map((r) => r.text), { kind: 'document', batchSize: rows.length });
  return rows.map((_, i) => out.vectors.subarray(i * out.dims, (i + 1) * out.dims));
}


for (const id of ['tiny-gemma', 'static-tiny']) {
  const runtimes = id === 'static-tiny' ? ['node', 'web', 'core'] : ['node', 'web'];
  for (const runtime of runtimes) {
    test(`${id} on ${runtime === 'core' ? 'the vesper core' : `onnxruntime-${runtime}`} matches torch`, async () => {
      const rows = reference(id);
      const e = await embedder(id, runtime);
      // The committed tokenizer, through the core, reproduces torch's ids.
      for (const r of rows) {
        const ids = Array.from(e.tokenizer.encode(r.text).ids);
        assert.deepEqual(ids, r.ids, r.text);
      }
      const got = await embedReference(e, rows);
      const diff = Math.max(...got.map((v, i) => maxAbsDiff(v, rows[i].sentence_embedding)));
      process.stdout.write(`# parity ${id} ${runtime} vs torch: max abs diff ${diff.toExponential(2)}\n`);
      assert.ok(diff < 1e-5, `max abs diff ${diff}`);
      await e.dispose();
    });
  }
}

test('Matryoshka: a 32-dim tiny-gemma vector is the renormalised prefix', async () => {
  const full = await embedder('tiny-gemma', 'node');
  const small = await embedder('tiny-gemma', 'node', { dims: 32 });
  assert.equal(small.info.id, 'tiny-gemma:fp32@32');
  const a = (await full.embed(['gradient descent'], { kind: 'query' })).vectors;
  const b = (await small.embed(['gradient descent'], { kind: 'query' })).vectors;
  const prefix = a.slice(0, 32);
  const norm = Math.hypot(...prefix);
  assert.ok(maxAbsDiff(prefix.map((x) => x / norm), b) < 1e-6);
  await assert.rejects(embedder('tiny-gemma', 'node', { dims: 20 }), /supports dims 64, 32, 16/);
});

test('prompts, truncation warnings, empty input and progress', async () => {
  const e = await embedder('tiny-gemma', 'web');
  const q = await e.embed(['why cameras?'], { kind: 'query' });
  const plain = await e.embed(['why cameras?'], { kind: 'document' });
  assert.ok(maxAbsDiff(q.vectors, plain.vectors) > 1e-3, 'query and document prompts differ');
  assert.equal(q.tokens[0], e.tokenizer.encode('task: search result | query: why cameras?').length);

  const long = 'backpropagation '.repeat(800);
  const seen = [];
  const out = await e.embed(['short', long, 'another'], { batchSize: 2, onProgress: (p) => seen.push(p) });
  assert.deepEqual(out.warnings.map((w) => [w.index, w.code]), [[1, 'truncated']]);
  assert.equal(out.tokens[1], 512);
  assert.deepEqual(seen, [{ done: 2, total: 3 }, { done: 3, total: 3 }]);
  await assert.rejects(e.embed(['ok', '   ']), { code: 'empty_input', message: /text 1 is empty/ });
  await assert.rejects(e.embed([]), { code: 'empty_input' });
  await e.dispose();
});

test('a missing model file names the fix', async () => {
  const readFile = fileReader(resolveModel('embeddinggemma-300m'));
  await assert.rejects(readFile('onnx/model.onnx'), /fetch-model embeddinggemma-300m/);
});
