// Picks the execution provider for an ONNX model in the browser: WebGPU when
// the browser has it and the manifest allows it, but only after checking it.
// A fixed probe text is embedded on WebGPU and on WASM; below the cosine bar
// (0.999) WebGPU's vectors are not trusted and WASM is used, with the reason.
import { createEmbedder } from './embedder.mjs';

export const PROBE_TEXT = 'vesper probe: gradient descent walks downhill. 梯度下降。 Descida do gradiente.';

function cosine(a, b) {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

async function hasWebGPU() {
  if (typeof navigator === 'undefined' || !navigator.gpu) return null;
  try {
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) return null;
    const info = adapter.info ?? {};
    return { vendor: info.vendor ?? '', architecture: info.architecture ?? '', fallback: Boolean(info.isFallbackAdapter) };
  } catch {
    return null;
  }
}

// Resolves to { embedder, backend, reason, probe: { cosine } | null, adapter }.
export async function createBrowserEmbedder({ core, ort, manifest, readFile, variant, dims, preferWebGPU = true, minCosine = 0.999 }) {
  const wasm = await createEmbedder({ core, manifest, readFile, ort, executionProviders: ['wasm'], variant, dims });
  if (manifest.kind === 'static') return { embedder: wasm, backend: wasm.backend, reason: 'static model: run by the vesper core', probe: null, adapter: null };
  const v = manifest.variants[variant ?? manifest.defaultVariant];
  const adapter = await hasWebGPU();
  let reason;
  if (!preferWebGPU) reason = 'WebGPU not requested';
  else if (!adapter) reason = 'this browser has no WebGPU adapter';
  else if (v.providers?.webgpu?.ok === false) reason = `WebGPU disabled for this model: ${v.providers.webgpu.why}`;
  else {
    let gpu = null;
    try {
      gpu = await createEmbedder({ core, manifest, readFile, ort, executionProviders: ['webgpu'], variant, dims });
      const [a, b] = await Promise.all([gpu.embed([PROBE_TEXT], { kind: 'query' }), wasm.embed([PROBE_TEXT], { kind: 'query' })]);
      const c = cosine(a.vectors, b.vectors);
      if (c >= minCosine) {
        await wasm.dispose();
        return { embedder: gpu, backend: 'webgpu', reason: `WebGPU output matches WASM (cosine ${c.toFixed(6)})`, probe: { cosine: c }, adapter };
      }
      reason = `WebGPU output disagrees with WASM on the probe text (cosine ${c.toFixed(6)} < ${minCosine}): using WASM`;
      await gpu.dispose();
      return { embedder: wasm, backend: 'wasm', reason, probe: { cosine: c }, adapter };
    } catch (err) {
      reason = `WebGPU failed (${err.message}): using WASM`;
      await gpu?.dispose();
    }
  }
  return { embedder: wasm, backend: 'wasm', reason, probe: null, adapter };
}

// Fetches a model file relative to the model's folder URL, reporting bytes.
export function urlReader(baseUrl, { onBytes } = {}) {
  return async (path) => {
    const res = await fetch(new URL(path, baseUrl));
    if (!res.ok) throw Object.assign(new Error(`${new URL(path, baseUrl)}: HTTP ${res.status}`), { code: 'not_found' });
    const total = Number(res.headers.get('content-length') ?? 0);
    if (!res.body || !onBytes) return new Uint8Array(await res.arrayBuffer());
    const parts = [];
    let done = 0;
    for (const reader = res.body.getReader(); ; ) {
      const { value, done: end } = await reader.read();
      if (end) break;
      parts.push(value);
      done += value.length;
      onBytes({ path, done, total });
    }
    const out = new Uint8Array(done);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
}
