// Picks the execution provider for an ONNX model in the browser: WebGPU when
// the browser has it and the manifest allows it, but only after checking it.
// A fixed probe text is embedded on WebGPU and on WASM; below the cosine bar
// (0.999) WebGPU's vectors are not trusted and WASM is used, with the reason.
import { VesperError } from './errors.mjs';
import { createEmbedder, EmbedError } from './embedder.mjs';

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

// The browser's WebGPU adapter ({ vendor, architecture, fallback }), or null.
export async function hasWebGPU() {
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
// onSwitch(chosen) is called if WebGPU later fails and WASM takes over.
// cpuProvider: the execution provider WebGPU is checked against and falls
// back to ('wasm'; 'cpu' with onnxruntime-node, which takes resolvePath).
export async function createBrowserEmbedder({
  core, ort, manifest, readFile, variant, dims, preferWebGPU = true, minCosine = 0.999, onSwitch = null, cpuProvider = 'wasm', resolvePath = null,
}) {
  const wasm = await createEmbedder({ core, manifest, readFile, ort, executionProviders: [cpuProvider], variant, dims, resolvePath });
  if (manifest.kind === 'static') return { embedder: wasm, backend: wasm.backend, reason: 'static model: run by the vesper core', probe: null, adapter: null };
  const v = manifest.variants[variant ?? manifest.defaultVariant];
  const adapter = await hasWebGPU();
  let reason;
  if (cpuProvider !== 'wasm') reason = `run by ONNX Runtime's native ${cpuProvider} provider`;
  else if (!preferWebGPU) reason = 'WebGPU not requested';
  else if (!adapter) reason = 'this browser has no WebGPU adapter';
  else if (v.providers?.webgpu?.ok === false) reason = `WebGPU disabled for this model: ${v.providers.webgpu.why}`;
  else {
    let gpu = null;
    try {
      gpu = await createEmbedder({ core, manifest, readFile, ort, executionProviders: ['webgpu'], variant, dims });
      const [a, b] = await Promise.all([gpu.embed([PROBE_TEXT], { kind: 'query' }), wasm.embed([PROBE_TEXT], { kind: 'query' })]);
      const c = cosine(a.vectors, b.vectors);
      if (c >= minCosine) {
        // The WASM session stays: if the GPU is lost later, queries go on there.
        const chosen = { backend: 'webgpu', reason: `WebGPU output matches WASM (cosine ${c.toFixed(6)})`, probe: { cosine: c }, adapter };
        chosen.embedder = failover(gpu, wasm, (err) => {
          Object.assign(chosen, { backend: 'wasm', reason: `WebGPU failed during a query (${briefly(err)}): switched to WASM` });
          onSwitch?.(chosen);
        });
        return chosen;
      }
      reason = `WebGPU output disagrees with WASM on the probe text (cosine ${c.toFixed(6)} < ${minCosine}): using WASM`;
      await gpu.dispose();
      return { embedder: wasm, backend: wasm.backend, reason, probe: { cosine: c }, adapter };
    } catch (err) {
      reason = `WebGPU failed (${err.message}): using WASM`;
      await gpu?.dispose();
    }
  }
  return { embedder: wasm, backend: wasm.backend, reason, probe: null, adapter };
}

// Longest error text a notice repeats.
const BRIEF_CHARS = 240;

// A runtime's error as one readable line: ONNX Runtime's messages carry its
// build machine's source paths and C++ signatures, and run over lines; a long
// one keeps its end, where the cause is.
export function briefly(err) {
  const text = String(err?.message ?? err)
    .replace(/\s+/g, ' ')
    .replace(/\/\S+\.(cc|cpp|h):\d+ [^]*? (?=\S+ ==|Failed|failed)/g, '')
    .trim();
  if (text.length <= BRIEF_CHARS) return text;
  // The cause is at the end ("...: The Device was lost before mapping was resolved.").
  const tail = text.slice(-BRIEF_CHARS);
  return `…${tail.slice(tail.indexOf(' ') + 1)}`;
}

// An embedder that runs on `primary` until it fails at run time (a lost GPU
// device, an execution provider error), then retries that call and every later
// one on `fallback`: the query is answered, never dropped. Errors about the
// input (EmbedError) are the caller's and pass through unchanged.
export function failover(primary, fallback, onSwitch) {
  let current = primary;
  return {
    info: primary.info,
    manifest: primary.manifest,
    pieceModel: primary.pieceModel,
    withParts: primary.withParts,
    rowStats: primary.rowStats,
    lexiconStats: primary.lexiconStats,
    lexicon: fallback.lexicon,  // the one that outlives a failover
    get backend() {
      return current.backend;
    },
    get tokenizer() {
      return current.tokenizer;
    },
    async embed(texts, options) {
      if (current === fallback) return fallback.embed(texts, options);
      try {
        return await primary.embed(texts, options);
      } catch (err) {
        if (err instanceof EmbedError) throw err;
        current = fallback;
        onSwitch(err);
        primary.dispose().catch(() => {});
        return fallback.embed(texts, options);
      }
    },
    async dispose() {
      if (current === primary) await primary.dispose();
      await fallback.dispose();
    },
  };
}

async function readLocalFile(url) {
  const { readFile } = await import('node:fs/promises');
  try {
    return new Uint8Array(await readFile(url));
  } catch (err) {
    const code = err.code === 'ENOENT' ? 'not_found' : 'invalid_argument';
    throw new VesperError(code, `${decodeURIComponent(url.pathname)}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`, { cause: err });
  }
}

// Bytes from what a caller may hand over: bytes, an ArrayBuffer, a URL, or a
// string that is a URL (relative to `base`, the page in a browser) or, in
// Node, a file path.
export async function readSource(source, base = globalThis.document?.baseURI) {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    return new Uint8Array(source.buffer ?? source, source.byteOffset ?? 0, source.byteLength);
  }
  if (typeof source !== 'string' && !(source instanceof URL)) {
    throw new VesperError('invalid_argument', 'expected bytes, a URL or a path');
  }
  let url;
  if (source instanceof URL || /^[a-z][a-z0-9+.-]*:\/\//i.test(source)) url = new URL(source);
  else if (base) url = new URL(source, base);
  else url = (await import('node:url')).pathToFileURL(source);  // Node: a path
  return urlReader(url)('');
}

// The body's length as it will be read, or null when unknown: a server that
// compresses (Content-Encoding: gzip, as static hosts do) gives the length
// of the compressed bytes, while the body reads decompressed.
export function bodyLength(res) {
  const encoding = res.headers.get('content-encoding');
  if (encoding && encoding !== 'identity') return null;
  const length = Number(res.headers.get('content-length') ?? NaN);
  return Number.isFinite(length) ? length : null;
}

// Fetches a model file relative to the model's folder URL, reporting bytes.
// file: URLs (Node) are read from disk, in one piece.
export function urlReader(baseUrl, { onBytes } = {}) {
  return async (path) => {
    const url = new URL(path, baseUrl);
    if (url.protocol === 'file:') {
      const bytes = await readLocalFile(url);
      onBytes?.({ path, done: bytes.length, total: bytes.length });
      return bytes;
    }
    const res = await fetch(url);
    if (!res.ok) throw new VesperError('not_found', `${url}: HTTP ${res.status}`);
    const total = bodyLength(res) ?? 0;  // 0: unknown
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
