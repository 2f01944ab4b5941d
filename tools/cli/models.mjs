// Finding a model on disk for the node tools; loading it is the engine's
// (web/engine/model.mjs). A model is named by id (models/<id>/,
// models/test/<id>/, or $VESPER_MODELS/<id>/; "id:variant@dims" picks a
// variant and Matryoshka dims) or by a directory holding manifest.json.
//
// What a model of the source tree's models/ gets that is not committed
// (downloaded weights, a tokenizer tools/build.sh converts) is kept in the
// build tree, in $VESPER_MODEL_STORE/<folder>/ (default build/models/); a
// model in a folder of the user's keeps them in that folder.
import { downloadSize } from '../../web/engine/download.mjs';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { VesperError } from '../../web/engine/errors.mjs';
import { parseManifest } from '../../web/engine/manifest.mjs';
import { loadGenerator, loadModel, modelFileReader } from '../../web/engine/model.mjs';
import { repoRoot } from './core.mjs';

export function modelSearchPath() {
  return [process.env.VESPER_MODELS, join(repoRoot, 'models'), join(repoRoot, 'models/test')].filter(Boolean);
}

// "embeddinggemma-300m:q8@256" -> { base, variant, dims }
export function parseModelId(id) {
  const m = /^([^:@]+)(?::([^@]+))?(?:@(\d+))?$/.exec(id);
  if (!m) throw new Error(`bad model id '${id}'`);
  return { base: m[1], variant: m[2] ?? null, dims: m[3] ? Number(m[3]) : null };
}

// The id a manifest claims, or null when it is not one: a broken manifest in
// one folder must not stop the search for another model.
function peekId(path) {
  try {
    const id = JSON.parse(readFileSync(path, 'utf8'))?.id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

const sourceModels = join(repoRoot, 'models');
export const modelStore = () => process.env.VESPER_MODEL_STORE ?? join(repoRoot, 'build/models');

// Where a model's downloaded and built files go (see above).
function storeOf(dir) {
  const rel = relative(sourceModels, dir);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? join(modelStore(), rel) : dir;
}

const looksLikeDir = (spec) => spec.includes('/') || spec.startsWith('.') || isAbsolute(spec);

// spec -> { manifest, dir, store, variant, dims }: store is where its
// downloaded and built files are; variant, dims what the id asks, or null.
export function resolveModel(spec) {
  const asked = looksLikeDir(spec) ? { variant: null, dims: null } : parseModelId(spec);
  const found = (path, dir) => ({
    manifest: parseManifest(readFileSync(path, 'utf8'), path), dir, store: storeOf(resolve(dir)), variant: asked.variant, dims: asked.dims,
  });
  const dirs = looksLikeDir(spec) ? [resolve(spec)] : modelSearchPath().map((d) => join(d, asked.base));
  for (const dir of dirs) {
    const path = join(dir, 'manifest.json');
    if (existsSync(path)) return found(path, dir);
  }
  // A pack names its model by manifest id, which need not be its folder's name
  // (models/default holds 'vesper-default-2').
  if (!looksLikeDir(spec)) {
    for (const root of modelSearchPath()) {
      if (!existsSync(root)) continue;
      for (const name of readdirSync(root)) {
        const path = join(root, name, 'manifest.json');
        if (existsSync(path) && peekId(path) === asked.base) return found(path, join(root, name));
      }
    }
  }
  throw new Error(`no model '${spec}' (looked in ${dirs.join(', ')})`);
}

// Every model in the search path (first of each id wins), with per variant
// whether its files are here (and their size) or can be fetched.
export function listModels() {
  const seen = new Map();
  for (const root of modelSearchPath()) {
    if (!existsSync(root)) continue;
    for (const name of readdirSync(root).sort()) {
      const path = join(root, name, 'manifest.json');
      if (!existsSync(path)) continue;
      let model;
      try {
        model = resolveModel(join(root, name));
      } catch (err) {
        seen.set(`${root}/${name}`, { id: name, error: err.message });
        continue;
      }
      if (!seen.has(model.manifest.id)) seen.set(model.manifest.id, describeModel(model));
    }
  }
  return [...seen.values()];
}

function fileSize(model, path) {
  for (const dir of [model.dir, model.store]) {
    const full = resolve(dir, path);
    if (existsSync(full)) return statSync(full).size;
  }
  return null;
}

function describeModel(model) {
  const m = model.manifest;
  const base = [m.tokenizer.file, ...(m.static ? [m.static.file] : []), ...(m.lexicon ? [m.lexicon.file] : [])];
  const variants = m.kind === 'static' && !m.variants ? { static: { files: [] } } : m.variants;
  const out = { id: m.id, name: m.name ?? m.id, kind: m.kind, dims: m.dims, dir: model.dir, variants: {} };
  for (const [name, v] of Object.entries(variants)) {
    const files = [...new Set([...base, ...v.files.map((f) => f.path)])];
    const sizes = files.map((f) => fileSize(model, f));
    const missing = files.filter((f, i) => sizes[i] === null);
    out.variants[name] = {
      installed: missing.length === 0,
      bytes: sizes.reduce((s, x) => s + (x ?? 0), 0),
      missing,
      fetchable: missing.length > 0 && v.files.filter((f) => missing.includes(f.path)).every((f) => f.url),
      // What fetch-model downloads (exact where the manifest pins sizes), or null.
      download: m.kind === 'static' && !m.variants ? null : downloadSize(m, name),
    };
  }
  return out;
}

// A missing model file, with how to get it: downloaded by fetch-model, or
// built by tools/build.sh.
export function withFix(err, manifest) {
  if (err?.code !== 'not_found' || !/^model file /.test(err.message)) return err;
  const downloadable = Object.values(manifest.variants ?? {}).some((v) => v.files.some((f) => f.url));
  const built = manifest.tokenizer?.build && err.message.includes(manifest.tokenizer.file);
  const fix = built ? ': run tools/build.sh, which builds it'
    : downloadable ? `: download it with 'tools/vesper fetch-model ${manifest.id}'` : '';
  return new VesperError('not_found', `${err.message}${fix}`, { cause: err });
}

// A model's file reader ({ manifest, dir, store } from resolveModel).
export function fileReader({ manifest, dir, store }) {
  const read = modelFileReader([...new Set([dir, store])].map((d) => pathToFileURL(`${resolve(d)}/`)), manifest.id);
  return async (path) => {
    try {
      return await read(path);
    } catch (err) {
      throw withFix(err, manifest);
    }
  };
}

// Loads the model a spec names with load(dir, { variant, dims }); a
// missing file's error says how to get it.
async function withSpec(spec, options, load) {
  const r = resolveModel(spec);
  try {
    return await load(r.dir, { variant: options.variant ?? r.variant, dims: options.dims ?? r.dims, files: r.store === r.dir ? [] : [r.store] });
  } catch (err) {
    throw withFix(err, r.manifest);
  }
}

// engine.useModel() for a spec (the CLI).
export function useModelSpec(engine, spec, options = {}) {
  return withSpec(spec, options, (dir, o) => engine.useModel(dir, o));
}

// A generator for a spec (id or folder) on a core of the caller's.
export function generatorSpec(core, spec, options = {}) {
  return withSpec(spec, options, (dir, o) => loadGenerator({ core, model: dir, variant: o.variant, files: o.files }));
}

// An embedder for a spec on a core of the caller's (the evaluation tools).
export async function nodeEmbedder(core, spec, options = {}) {
  const loaded = await withSpec(spec, options, (model, o) => loadModel({ core, model, ...o, preferWebGPU: false }));
  return loaded.embedder;
}
