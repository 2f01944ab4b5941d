#!/usr/bin/env node
// Tokens per second of the tiny test generator (models/test/tiny-gemma-it)
// through web/engine/generator.mjs in Node: onnxruntime-node (CPU) and
// onnxruntime-web (WASM, one thread). Not a test: machine facts, for
// bench/persona/GENERATION.md. The browser figures come from
// tests/browser/inference.test.mjs (its diagnostic line).
//
//   node bench/generation.mjs
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ortWeb from 'onnxruntime-web';
import ortNode from 'onnxruntime-node';
import { createGenerator } from '../web/engine/generator.mjs';
import { fileReader, resolveModel } from '../tools/cli/models.mjs';
import { loadCore } from '../tools/cli/core.mjs';
const core = await loadCore();
ortWeb.env.wasm.numThreads = 1; ortWeb.env.logLevel = 'error';
const model = resolveModel('tiny-gemma-it');
const ref = JSON.parse(readFileSync(join(model.dir, 'reference.json'), 'utf8'));
for (const [name, ort, ep] of [['onnxruntime-node (CPU)', ortNode, 'cpu'], ['onnxruntime-web (WASM, 1 thread) in Node', ortWeb, 'wasm']]) {
  const g = await createGenerator({ core, manifest: model.manifest, readFile: fileReader(model), ort, executionProviders: [ep], resolvePath: ep === 'cpu' ? (p) => join(model.dir, p) : null });
  let best = Infinity;
  for (let run = 0; run < 3; run++) {
    const t0 = performance.now(); let n = 0;
    for (const c of ref.conversations) n += (await g.generate(c.prompt, { maxTokens: 64, stop: [] })).ids.length;
    best = Math.min(best, (performance.now() - t0) / n);
  }
  console.log(`${name}: ${(1000 / best).toFixed(0)} tokens/s (64 tokens after each of 3 reference prompts of 20-41 tokens, best of 3)`);
  await g.dispose();
}
