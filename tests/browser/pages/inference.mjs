// Embeds the test models' reference texts on WASM and on WebGPU in this
// browser and reports both, plus the backend the probe check chose.
import { loadCore } from '/wasm/vesper.mjs';
import * as ort from '/ort/ort.webgpu.min.mjs';
import { createEmbedder } from '/engine/embedder.mjs';
import { createBrowserEmbedder, urlReader } from '/engine/backend.mjs';

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

window.runCheck = (id, minCosine = 0.999) => run(id, minCosine).catch((e) => ({ error: `${e.message}\n${e.stack}` }));
window.ready = true;
