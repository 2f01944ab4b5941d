// Embeds the test models' reference texts on WASM and on WebGPU in this
// browser and reports both, plus the backend the probe check chose.
import { loadCore } from '/wasm/vesper.mjs';
import * as ort from '/ort/ort.webgpu.min.mjs';
import { createEmbedder } from '/engine/embedder.mjs';
import { createBrowserEmbedder, urlReader } from '/engine/backend.mjs';
import { createGenerator } from '/engine/generator.mjs';
import { compareLogits } from '/engine/generator-backend.mjs';
import { loadGenerator } from '/engine/model.mjs';

ort.env.logLevel = 'error';
ort.env.wasm.numThreads = 1;

async function run(id, minCosine) {
  const core = await loadCore();
  const base = new URL(`/models/test/${id}/`, location.href);
  const manifest = await (await fetch(new URL('manifest.json', base))).json();
  const reference = await (await fetch(new URL('reference.json', base))).json();
  const readFile = urlReader(base);
  const texts = reference.map((r) => r.text);
  const out = {};
  for (const ep of ['wasm', 'webgpu']) {
    const e = await createEmbedder({ core, manifest, readFile, ort, executionProviders: [ep], useStaticCore: false });
    e.info.documentTemplate = '{text}';
    const t0 = performance.now();
    const r = await e.embed(texts, { batchSize: texts.length });
    out[ep] = { vectors: Array.from(r.vectors), ms: performance.now() - t0, timings: r.timings };
    await e.dispose();
  }
  const chosen = await createBrowserEmbedder({ core, ort, manifest, readFile, minCosine });
  return {
    id,
    dims: manifest.dims,
    reference: reference.map((r) => r.sentence_embedding),
    ...out,
    chosen: { backend: chosen.backend, reason: chosen.reason, probe: chosen.probe, adapter: chosen.adapter },
  };
}

// The tiny generator's greedy tokens for its reference conversations on
// WASM and on WebGPU, and the correctness gate's comparison of the two.
async function runGenerator() {
  const core = await loadCore();
  const base = new URL('/models/test/tiny-gemma-it/', location.href);
  const manifest = await (await fetch(new URL('manifest.json', base))).json();
  const reference = await (await fetch(new URL('reference.json', base))).json();
  const readFile = urlReader(base);
  const out = { reference };
  const firsts = {};
  for (const ep of ['wasm', 'webgpu']) {
    const g = await createGenerator({ core, manifest, readFile, ort, executionProviders: [ep] });
    const t0 = performance.now();
    let tokens = 0;
    out[ep] = [];
    for (const c of reference.conversations) {
      const r = await g.generate(c.prompt, { maxTokens: reference.newTokens, stop: [] });
      out[ep].push(r.ids);
      tokens += r.ids.length;
    }
    out[`${ep}TokensPerSecond`] = tokens / ((performance.now() - t0) / 1000);
    firsts[ep] = await g.nextLogits(reference.conversations[0].prompt);
    await g.dispose();
  }
  const gate = compareLogits(firsts.webgpu, firsts.wasm);
  out.gate = { ok: gate.ok, diff: gate.diff, scale: gate.scale };
  // What the page's loader chooses, behind the same gate.
  const chosen = await loadGenerator({ core, model: base });
  out.chosen = { backend: chosen.backend, reason: chosen.reason };
  await chosen.generator.dispose();
  return out;
}

window.runGenerator = () => runGenerator().catch((e) => ({ error: `${e.message}\n${e.stack}` }));
window.runCheck = (id, minCosine = 0.999) => run(id, minCosine).catch((e) => ({ error: `${e.message}\n${e.stack}` }));
window.ready = true;
