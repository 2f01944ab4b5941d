// Loading an embedding model from its folder, the one way every client does
// it (the engine behind the page, the element and the package API; the CLI;
// the evaluation tools): read manifest.json, read the files it names (never
// outside the folder and its parent, where the project's test models share a
// tokenizer), pick ONNX Runtime for the platform and the execution provider
// (WebGPU after a probe, else WASM in a browser; the native CPU one in Node).
//
//   const { embedder, backend, reason } = await loadModel({ core, model: 'models/default/' });
import { createBrowserEmbedder, urlReader } from './backend.mjs';
import { cachedReader } from './download.mjs';
import { VesperError } from './errors.mjs';
import { chooseGeneratorBackend } from './generator-backend.mjs';
import { parseManifest } from './manifest.mjs';

// web/: the site's root, one folder up from this module; the page's bundle
// (tools/site.mjs), which sits at the root, says "./" instead.
const here = new URL(import.meta.vesperSiteRoot ?? '../', import.meta.url);
const inNode = here.protocol === 'file:';

// A model folder as a URL ending in "/": a URL as it is; a relative string
// against the site in a browser (its layout), against the working folder in
// Node (a path).
export async function folderUrl(folder) {
  const text = String(folder instanceof URL ? folder.href : folder).replace(/\/?$/, '/');
  if (folder instanceof URL || /^[a-z][a-z0-9+.-]*:\/\//i.test(text) || !inNode) return new URL(text, here);
  return (await import('node:url')).pathToFileURL(text);
}

// A model folder's manifest.json, checked (web/engine/manifest.mjs).
export async function readManifest(folder) {
  const base = await folderUrl(folder);
  const text = new TextDecoder().decode(await urlReader(base)('manifest.json'));
  return parseManifest(text, decodeURIComponent(new URL('manifest.json', base).pathname));
}

// ONNX Runtime and its CPU execution provider: in a browser the site's copy
// (the WebGPU build when there is a GPU) with 'wasm'; in Node the native
// onnxruntime-node with 'cpu' (several times faster than WASM), or
// onnxruntime-web's Node build where the native one is not installed.
async function loadOrt(preferWebGPU) {
  let ort;
  let cpu = 'wasm';
  if (!inNode) {
    ort = await import(new URL(`ort/${preferWebGPU && globalThis.navigator?.gpu ? 'ort.webgpu.min.mjs' : 'ort.wasm.min.mjs'}`, here).href);
  } else {
    try {
      ort = (await import('onnxruntime-node')).default;
      cpu = 'cpu';
    } catch {
      ort = await import('onnxruntime-web');
    }
  }
  ort.env.logLevel = 'error';
  return { ort, cpu };
}

// A file a manifest names, as a URL relative to the model's folder; a name
// that leads out of the folder's parent ("../../secrets", "/etc/passwd",
// "https://elsewhere/") is refused before anything is read.
function modelFile(base, manifestId, path) {
  const root = new URL('../', base);
  const url = new URL(String(path), base);
  if (!path || url.origin !== root.origin || !url.href.startsWith(root.href) || url.href === root.href) {
    throw new VesperError('invalid_argument', `model ${manifestId} names a file outside its folder: ${path}`);
  }
  return url;
}

// The reader of a model's files (what createEmbedder takes): checked by
// modelFile; looked for in `bases` in turn (its folder, then where its
// downloaded or built files are kept); a missing one is 'not_found', named
// as a model file in the first.
export function modelFileReader(bases, manifestId, onBytes = null) {
  const readers = bases.map((base) => [base, urlReader(base, { onBytes })]);
  return async (path) => {
    let first = null;
    for (const [base, read] of readers) {
      const url = modelFile(base, manifestId, path);
      first ??= url;
      try {
        return await read(url.href);
      } catch (err) {
        if (err.code !== 'not_found') throw err;
      }
    }
    throw new VesperError('not_found', `model file ${decodeURIComponent(first.protocol === 'file:' ? first.pathname : first.href)} is missing`);
  };
}

// model: a folder (see folderUrl); variant, dims: the manifest's defaults
// unless given; files: more folders its files may be in (a local store of
// downloads, in Node); cached: its files were downloaded into the browser's
// Cache Storage (web/engine/download.mjs), read from there first. Resolves to { embedder, backend, reason, manifest, folder };
// onSwitch(chosen) if WebGPU fails later and WASM takes over. Throws a
// VesperError when the model cannot be loaded.
export async function loadModel({ core, model, files = [], cached = false, variant = null, dims = null, preferWebGPU = true, onProgress = null, onSwitch = null }) {
  const { base, bases, manifest, readFile } = await modelFolder({ model, files, cached, variant, onProgress });
  const { ort, cpu } = manifest.kind === 'static' ? { ort: null, cpu: 'wasm' } : await loadOrt(preferWebGPU && !inNode);
  // onnxruntime-node maps a model file from disk itself (weights can be GBs).
  const resolvePath = cpu === 'cpu' ? await filePathResolver(bases, manifest.id) : null;
  const chosen = await createBrowserEmbedder({
    core, ort, manifest, readFile, variant, dims, preferWebGPU: preferWebGPU && !inNode, cpuProvider: cpu, resolvePath, onSwitch,
  });
  return { ...chosen, manifest, folder: base };
}

// A model folder's manifest and the reader of its files: its folders in
// turn, or first the browser's Cache Storage where it was downloaded there.
async function modelFolder({ model, files, cached, variant, onProgress }) {
  const base = await folderUrl(model);
  const bases = [base, ...(await Promise.all(files.map(folderUrl)))];
  const manifest = await readManifest(base);
  const onBytes = (p) => onProgress?.({ stage: 'download', label: `${manifest.id}: ${p.path.split('/').pop()}`, done: p.done, total: p.total });
  const fromFolders = modelFileReader(bases, manifest.id, onBytes);
  const fromCache = cached ? cachedReader(manifest, variant ?? manifest.defaultVariant) : null;
  const readFile = fromCache ? (path) => fromCache(path).catch((err) => (err.code === 'not_found' ? fromFolders(path) : Promise.reject(err))) : fromFolders;
  return { base, bases, manifest, readFile };
}

// A generator (web/engine/generator.mjs) from a model folder, its files read
// as loadModel reads an embedding model's. Runs on ONNX Runtime's CPU
// provider (Node) or WASM (browser). Resolves to { generator, manifest, folder, backend }.
export async function loadGenerator({ core, model, files = [], cached = false, variant = null, preferWebGPU = true, onProgress = null, onSwitch = null }) {
  const { base, bases, manifest, readFile } = await modelFolder({ model, files, cached, variant, onProgress });
  if (manifest.kind !== 'generator') throw new VesperError('invalid_argument', `${manifest.id} is an embedding model, not a generator`);
  const { ort, cpu } = await loadOrt(preferWebGPU && !inNode);
  const resolvePath = cpu === 'cpu' ? await filePathResolver(bases, manifest.id) : null;
  const chosen = await chooseGeneratorBackend({ core, ort, manifest, readFile, variant, cpu, resolvePath, preferWebGPU: preferWebGPU && !inNode, onSwitch });
  return { ...chosen, manifest, folder: base };
}

// For onnxruntime-node: a manifest path -> a file path, checked and looked
// for as the reader does.
async function filePathResolver(bases, manifestId) {
  const { fileURLToPath } = await import('node:url');
  const { existsSync } = await import('node:fs');
  return (path) => {
    const candidates = bases.map((base) => fileURLToPath(modelFile(base, manifestId, path)));
    const found = candidates.find((p) => existsSync(p));
    if (!found) throw new VesperError('not_found', `model file ${candidates[0]} is missing`);
    return found;
  };
}
