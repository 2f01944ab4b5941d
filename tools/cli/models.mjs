// Finding a model and its files on disk for the node tools.
// A model is named by id (models/<id>/, models/test/<id>/, or $VESPER_MODELS/<id>/)
// or by a directory holding manifest.json.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { createEmbedder } from '../../web/engine/embedder.mjs';
import { parseManifest } from '../../web/engine/manifest.mjs';
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

export function resolveModel(spec) {
  const looksLikeDir = spec.includes('/') || spec.startsWith('.') || isAbsolute(spec);
  const dirs = looksLikeDir ? [resolve(spec)] : modelSearchPath().map((d) => join(d, parseModelId(spec).base));
  for (const dir of dirs) {
    const path = join(dir, 'manifest.json');
    if (existsSync(path)) {
      const manifest = parseManifest(readFileSync(path, 'utf8'), path);
      return { manifest, dir };
    }
  }
  // A pack names its model by manifest id, which need not be its folder's name
  // (models/default holds 'vesper-default').
  if (!looksLikeDir) {
    const base = parseModelId(spec).base;
    for (const root of modelSearchPath()) {
      if (!existsSync(root)) continue;
      for (const name of readdirSync(root)) {
        const path = join(root, name, 'manifest.json');
        if (existsSync(path) && peekId(path) === base) return { manifest: parseManifest(readFileSync(path, 'utf8'), path), dir: join(root, name) };
      }
    }
  }
  throw new Error(`no model '${spec}' (looked in ${dirs.join(', ')})`);
}

function requireFile(dir, manifest, path) {
  // A manifest names files inside its own folder; a model in one of the
  // model folders may also use its siblings' (the test models share one
  // tokenizer). "../../etc/passwd" or an absolute path is refused, never read.
  const full = resolve(dir, String(path));
  const inside = (root) => {
    const rel = relative(root, full);
    return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
  };
  const parent = dirname(resolve(dir));
  const roots = [resolve(dir), ...(modelSearchPath().map((p) => resolve(p)).includes(parent) ? [parent] : [])];
  if (!path || !roots.some(inside)) {
    throw Object.assign(new Error(`model ${manifest.id ?? dir} names a file outside its folder: ${path}`), { code: 'invalid_argument' });
  }
  if (!existsSync(full)) {
    const hint = manifest.variants && Object.values(manifest.variants).some((v) => v.files.some((f) => f.url))
      ? `: download it with 'tools/vesper fetch-model ${manifest.id}'`
      : '';
    throw Object.assign(new Error(`model file ${full} is missing${hint}`), { code: 'not_found' });
  }
  return full;
}

export function fileReader(dir, manifest) {
  return async (path) => new Uint8Array(await readFile(requireFile(dir, manifest, path)));
}

// An embedder running on onnxruntime-node (or the core, for static models).
export async function nodeEmbedder(core, spec, { variant = null, dims = null } = {}) {
  const parsed = spec.includes('/') ? { variant: null, dims: null } : parseModelId(spec);
  const { manifest, dir } = resolveModel(spec);
  let ort = null;
  if (manifest.kind !== 'static') {
    const v = manifest.variants?.[variant ?? parsed.variant ?? manifest.defaultVariant];
    for (const f of v?.files ?? []) requireFile(dir, manifest, f.path);
    ort = (await import('onnxruntime-node')).default;
  }
  return createEmbedder({
    core,
    manifest,
    readFile: fileReader(dir, manifest),
    ort,
    executionProviders: ['cpu'],
    variant: variant ?? parsed.variant ?? manifest.defaultVariant,
    dims: dims ?? parsed.dims ?? manifest.dims,
    resolvePath: ort ? (p) => join(dir, p) : null,
  });
}
