#!/usr/bin/env node
// Assembles the static site into build/site: web/, the WASM core, ONNX
// Runtime Web's browser files, the models and the default packs. Everything
// the page needs is served from this one folder: no CDN.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildSync } from 'esbuild';
import { repoRoot } from './cli/core.mjs';
import { modelStore } from './cli/models.mjs';
import { parseManifest } from '../web/engine/manifest.mjs';

export function buildSite(out = join(repoRoot, 'build/site')) {
  const wasmDir = join(repoRoot, 'build-wasm/wasm');
  if (!existsSync(join(wasmDir, 'vesper_core.wasm'))) throw new Error('build the WASM core first (tools/build.sh)');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  // A knowledge base's tooling (kb/*/compile-persona.mjs) runs in Node, not on the site.
  cpSync(join(repoRoot, 'web'), out, { recursive: true, filter: (p) => !/[\\/]kb[\\/].*\.mjs$/.test(p) });
  cpSync(wasmDir, join(out, 'wasm'), { recursive: true });
  const ortDist = join(repoRoot, 'node_modules/onnxruntime-web/dist');
  mkdirSync(join(out, 'ort'));
  for (const f of ['ort.webgpu.min.mjs', 'ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm',
                   'ort.wasm.min.mjs', 'ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm']) {
    cpSync(join(ortDist, f), join(out, 'ort', f));
  }
  const models = join(out, 'models');
  for (const m of ['test', 'default', 'embeddinggemma-300m', 'multilingual-e5-small', 'gemma-3-270m-it', 'gemma-3-1b-it']) {
    const src = join(repoRoot, 'models', m);
    if (existsSync(src)) cpSync(src, join(models, m), { recursive: true, filter: (p) => !p.endsWith('.part') });
    // Its downloaded and built files (tools/cli/models.mjs), beside its manifest.
    const store = join(modelStore(), m);
    if (existsSync(src) && existsSync(store)) cpSync(store, join(models, m), { recursive: true, filter: (p) => !p.endsWith('.part') });
  }
  const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
  // The page's static model's table and lexicon also in parts, fetched as queries need them.
  if (config.model && isStatic(join(out, config.model))) {
    execFileSync(join(repoRoot, 'tools/vesper'), ['model-parts', join(out, config.model)], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  // The default knowledge base, prebuilt with the page's model, so the first
  // visit only has to embed the query.
  if (config.defaultPack) {
    const files = config.knowledgeBase.files.map((f) => join(repoRoot, 'web', f));
    const args = ['build', ...files, '--db', config.knowledgeBase.name, '--out', join(out, config.defaultPack)];
    if (config.persona) args.push('--persona', join(repoRoot, 'web', config.persona));
    args.push(...(config.model ? ['--model', join(repoRoot, config.model)] : ['--lexical']));
    execFileSync(join(repoRoot, 'tools/vesper'), args, { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  bundle(out, PAGE_ENTRY, PAGE_BUNDLE);
  bundleElement(out);
  bundle(out, 'vesper-engine.mjs', ENGINE_BUNDLE);
  writePreloadHints(out, config);
  writeServiceWorker(out, config);
  return out;
}

const isStatic = (dir) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).kind === 'static';

// The files of a model the page loads: a static model runs its table in the
// core, so its ONNX twin (for other runtimes) is not fetched. One served in
// parts (its table in blocks, its lexicon in shards) is not fetched whole at
// load (`offline`: the service worker still keeps the whole files, which a
// page offline reads where a part is not cached).
function pageModelFiles(out, config, { offline = false } = {}) {
  if (!config.model) return [];
  const dir = config.model.replace(/\/?$/, '/');
  const manifestPath = join(out, dir, 'manifest.json');
  const manifest = parseManifest(readFileSync(manifestPath, 'utf8'), manifestPath);
  const files = [`${dir}manifest.json`, `${dir}${manifest.tokenizer.file}`];
  if (manifest.kind !== 'static') files.push(...manifest.variants[manifest.defaultVariant].files.map((f) => `${dir}${f.path}`));
  else if (offline || !manifest.static.blocks) files.push(`${dir}${manifest.static.file}`);
  if (manifest.lexicon && (offline || !manifest.lexicon.shards)) files.push(`${dir}${manifest.lexicon.file}`);
  return files;
}

// The page's own modules (web/app, the engine and its parts: ~25 files) in
// one file at the site's root. Over HTTP/1.1 a browser opens six connections
// to a host, so 25 module requests queued the core, the tokenizer and the
// pack behind them (bench/COLD-LOAD.md); one request does not. The element
// likewise (`vesper-search.bundle.mjs`: one file for a site author to copy
// and load, where its modules came three imports deep, one round trip each),
// and the engine's API (`vesper-engine.bundle.mjs`).
// The modules stay beside them for the package. The core's glue (wasm/) is
// imported by URL at run time and stays apart.
const PAGE_ENTRY = 'app/main.mjs';
export const PAGE_BUNDLE = 'main.bundle.mjs';
const ELEMENT_ENTRY = 'vesper-search.mjs';
export const ELEMENT_BUNDLE = 'vesper-search.bundle.mjs';
// The engine's API alone, for a page that searches without the element.
export const ENGINE_BUNDLE = 'vesper-engine.bundle.mjs';
// Imported only under Node or by name (never on the page): left out.
const NOT_BUNDLED = ['node:*', 'onnxruntime-node', 'onnxruntime-web', '@lancedb/lancedb'];

function bundle(out, entry, outfile) {
  buildSync({
    entryPoints: [join(out, entry)], outfile: join(out, outfile), bundle: true, format: 'esm',
    platform: 'browser', target: 'es2022', minify: true, legalComments: 'none', external: NOT_BUNDLED, logLevel: 'warning',
    // web/engine/model.mjs finds the site's root from its own place; a bundle sits at the root.
    define: { 'import.meta.vesperSiteRoot': '"./"' },
  });
}

// An assembled page made to load `to` where it loads the module `from`,
// with `head` (e.g. preload hints) before the tag; refused if it does not.
function loadInstead(out, page, from, to, head = '') {
  const file = join(out, page);
  const tag = (src) => `<script type="module" src="${src}"></script>`;
  const html = readFileSync(file, 'utf8');
  if (!html.includes(tag(from))) throw new Error(`${page} does not load ${from} as expected`);
  writeFileSync(file, html.replace(tag(from), `${head}${tag(to)}`));
}

// The example site loads the element as a site author would: its bundle.
function bundleElement(out) {
  bundle(out, ELEMENT_ENTRY, ELEMENT_BUNDLE);
  loadInstead(out, 'example/index.html', `../${ELEMENT_ENTRY}`, `../${ELEMENT_BUNDLE}`);
}

// A cold visit fetched in a waterfall: the page's modules three imports
// deep, then the core, then the model's files one stage after another (1.4 s
// before the first model byte was asked for). The page's head now names
// its bundle and every file of the load, so the browser fetches them at
// once while it parses.
function writePreloadHints(out, config) {
  const modules = [PAGE_BUNDLE, 'wasm/vesper.mjs', 'wasm/vesper_core.mjs'];
  // as="fetch" + crossorigin: matched by the engine's fetch() (cors, same-origin credentials).
  const data = ['config.json', 'wasm/vesper_core.wasm', ...pageModelFiles(out, config)];
  if (config.defaultPack) data.push(config.defaultPack);
  const links = [
    ...modules.map((m) => `<link rel="modulepreload" href="${m}">`),
    ...data.map((f) => `<link rel="preload" href="${f}" as="fetch" crossorigin>`),
  ];
  loadInstead(out, 'index.html', PAGE_ENTRY, PAGE_BUNDLE, `${links.join('\n')}\n`);
}

function filesUnder(dir) {
  return readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? filesUnder(join(dir, f)) : [join(dir, f)]));
}

// The service worker precaches what the page needs at first paint and for
// its configured model; its version changes whenever any of those changes.
function writeServiceWorker(out, config) {
  // The page runs from its bundle: its modules one by one are not needed offline.
  const roots = ['index.html', 'styles.css', 'config.json', PAGE_BUNDLE, 'wasm', 'kb'];
  if (config.defaultPack) roots.push(config.defaultPack);
  roots.push(...pageModelFiles(out, config, { offline: true }));
  // The model picker's and the generator's manifests (their files are downloaded on demand, into web/engine/download.mjs's cache).
  for (const m of [...(config.models ?? []), ...(config.generator ? [config.generator] : [])]) roots.push(`${m.folder.replace(/\/?$/, '/')}manifest.json`);
  const files = [...new Set(roots)].flatMap((r) => (statSync(join(out, r)).isDirectory() ? filesUnder(join(out, r)) : [join(out, r)]));
  const hash = createHash('sha256');
  for (const f of files) hash.update(relative(out, f)).update(readFileSync(f));
  const urls = ['./', ...files.map((f) => `./${relative(out, f)}`)];
  const sw = readFileSync(join(out, 'sw.js'), 'utf8')
    .replace('__VESPER_BUILD__', hash.digest('hex').slice(0, 16))
    .replace('__VESPER_PRECACHE__', JSON.stringify(urls));
  writeFileSync(join(out, 'sw.js'), sw);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = buildSite(process.argv[2]);
  process.stderr.write(`site assembled in ${out}\n`);
}
