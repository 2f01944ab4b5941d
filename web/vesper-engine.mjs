// The site author's API: an engine over the WASM core, optionally with an
// embedding model, that stores knowledge bases as collections and searches
// them. Progress and errors are events/exceptions, not log lines.
//
//   const engine = await createEngine({ model: 'models/test/static-tiny/', onProgress });
//   await engine.store('notes', [{ source: 'a.md', text }], { onProgress });
//   const { results } = await engine.search('notes', 'question');
import { createBrowserEmbedder, urlReader } from './engine/backend.mjs';
import { VesperError } from './engine/errors.mjs';
import { parseManifest } from './engine/manifest.mjs';
import { addChunks, calibrate, chunkDocuments } from './engine/kb.mjs';

const here = new URL('./', import.meta.url);
// Passages shown (greyed) when nothing is: the nearest ones, with their scores.
const NEAR_MISSES = 5;

async function fetchWithProgress(url, label, onProgress) {
  const read = urlReader(new URL('./', url), { onBytes: (p) => onProgress?.({ stage: 'download', label, done: p.done, total: p.total }) });
  return read(url.pathname.split('/').pop());
}

// "name (2)", "name (3)", ...: the first not in taken.
function freeName(name, taken) {
  const base = name.replace(/ \(\d+\)$/, '');
  for (let i = 2; ; i++) if (!taken.has(`${base} (${i})`)) return `${base} (${i})`;
}

// onNotice(text): something the user should know that is not an error (the
// model fell back to lexical search, WebGPU was lost and WASM took over).
// Where the core's module and .wasm are: beside this file (the assembled
// site, a package), or in a source checkout under Node, where tools/build.sh
// leaves them in build-wasm/wasm/.
async function defaultCoreBase() {
  const beside = new URL('wasm/', here);
  if (here.protocol !== 'file:') return beside;
  const { existsSync } = await import('node:fs');
  return existsSync(new URL('vesper_core.wasm', beside)) ? beside : new URL('../build-wasm/wasm/', here);
}

// ONNX Runtime: the site's copy in a browser (WebGPU build when there is a
// GPU), the npm package's Node build (WASM execution provider) in Node.
async function loadOrt(preferWebGPU) {
  const ort = here.protocol === 'file:'
    ? await import('onnxruntime-web')
    : await import(new URL(`ort/${preferWebGPU && globalThis.navigator?.gpu ? 'ort.webgpu.min.mjs' : 'ort.wasm.min.mjs'}`, here).href);
  ort.env.logLevel = 'error';
  return ort;
}

// A model folder as a URL ending in "/": a URL as it is; a relative string
// against this module in a browser (the site's layout), against the working
// folder in Node (a path).
async function folderUrl(folder) {
  const text = String(folder instanceof URL ? folder.href : folder).replace(/\/?$/, '/');
  if (folder instanceof URL || /^[a-z][a-z0-9+.-]*:\/\//i.test(text) || here.protocol !== 'file:') return new URL(text, here);
  return (await import('node:url')).pathToFileURL(text);
}

// model: a model folder (see folderUrl).
// coreBase: where the core's vesper.mjs and vesper_core.wasm are.
export async function createEngine({ model = null, onProgress = null, onNotice = null, preferWebGPU = true, coreBase = null } = {}) {
  const t0 = performance.now();
  const coreUrl = coreBase ? new URL(coreBase, here) : await defaultCoreBase();
  const wasmBinary = await fetchWithProgress(new URL('vesper_core.wasm', coreUrl), 'vesper core', onProgress);
  const { loadCore } = await import(new URL('vesper.mjs', coreUrl).href);
  const core = await loadCore({ wasmBinary });
  let embedder = null;
  let backend = null;
  let notice = null;
  if (model) {
    try {
      const base = await folderUrl(model);
      const manifestUrl = new URL('manifest.json', base);
      const manifestText = new TextDecoder().decode(await urlReader(base)('manifest.json'));
      const manifest = parseManifest(manifestText, manifestUrl.pathname);
      const readFile = urlReader(base, { onBytes: (p) => onProgress?.({ stage: 'download', label: `${manifest.id}: ${p.path}`, done: p.done, total: p.total }) });
      const ort = manifest.kind === 'static' ? null : await loadOrt(preferWebGPU);
      const onSwitch = (now) => {
        Object.assign(backend, { name: now.backend, reason: now.reason });
        engine.notice = `${now.reason}.`;
        onNotice?.(engine.notice);
      };
      const chosen = await createBrowserEmbedder({ core, ort, manifest, readFile, preferWebGPU, onSwitch });
      embedder = chosen.embedder;
      backend = { name: chosen.backend, reason: chosen.reason };
    } catch (err) {
      notice = `The embedding model could not be loaded (${err.message}): search is lexical only.`;
    }
  } else {
    notice = 'No embedding model: search is lexical only.';
  }
  if (notice) onNotice?.(notice);
  const collections = new Map();

  const engine = {
    core,
    embedder,
    backend,
    notice,
    loadMs: performance.now() - t0,
    get model() {
      return embedder?.info ?? null;
    },
    collections,

    // docs: [{ source, text }]. Chunks, embeds and indexes; replaces a
    // collection of the same name only once everything succeeded.
    // metaHeadings: sections that are about the knowledge base itself.
    async store(name, docs, { onProgress: progress = null, signal = null, metaHeadings = [] } = {}) {
      const chunks = chunkDocuments(core, docs, { tokenizer: embedder?.tokenizer ?? null, metaHeadings });
      if (!chunks.length) throw new VesperError('empty_input', 'the knowledge base is empty: there is nothing to store');
      const db = calibrate(core.collection(name, embedder?.info ?? null), embedder);
      try {
        await addChunks(db, chunks, embedder, { onProgress: progress, signal });
      } catch (err) {
        db.dispose();
        throw err;
      }
      collections.get(name)?.dispose();
      collections.set(name, db);
      return db;
    },

    // Loads every collection of a pack; refused if made by another model.
    // A collection replaces the database of its name, or with keepBoth is
    // kept beside it as "name (2)", "name (3)", ... (also avoiding the names
    // in `reserved`, e.g. damaged databases still in storage), and
    // onRename(from, to) is told.
    loadPack(bytes, { keepBoth = false, reserved = [], onRename = null } = {}) {
      const loaded = core.loadPack(bytes, embedder?.info ?? null);
      const taken = new Set([...collections.keys(), ...reserved]);
      for (const db of loaded) {
        if (keepBoth && taken.has(db.name)) {
          const from = db.name;
          db.rename(freeName(from, taken));
          onRename?.(from, db.name);
        }
        taken.add(db.name);
        calibrate(db, embedder);
        collections.get(db.name)?.dispose();
        collections.set(db.name, db);
      }
      return loaded.map((db) => db.name);
    },

    exportPack(name) {
      return core.savePack([this.require(name)]);
    },

    remove(name) {
      collections.get(name)?.dispose();
      collections.delete(name);
    },

    // The bar a database's results must reach unless the user moves the
    // slider: its calibration's floor (cosine), or 0 for lexical databases.
    defaultThreshold(name) {
      const db = this.require(name);
      return db.model ? db.floor : 0;
    },

    require(name) {
      const db = collections.get(name);
      if (!db) throw new VesperError('not_found', `no database '${name}'`);
      return db;
    },

    // Resolves to { results, nearMisses, ranked, answerable, confidence,
    // evidence, query: { pieces, ids, length, vector }, timings, threshold }:
    // the core decides once whether the database answers the query;
    // `results` are the passages shown (fused order, at or above `threshold`:
    // the slider, default the calibration's floor), `nearMisses` the nearest
    // passages when nothing is shown, so the user is never left empty-handed.
    async search(name, text, { k = 10, threshold = null, mode = 'hybrid', padTo = 64 } = {}) {
      const db = this.require(name);
      if (!text.trim()) throw new VesperError('empty_input', 'the query is empty');
      const timings = {};
      let t = performance.now();
      const query = { pieces: [], ids: new Int32Array(0), length: 0, vector: null };
      if (embedder) {
        const prompt = core.formatPrompt(embedder.info.queryTemplate, text);
        const e = embedder.tokenizer.encode(prompt, { padTo });
        Object.assign(query, { pieces: e.pieces, ids: e.ids, length: e.length });
      }
      timings.tokenizeMs = performance.now() - t;
      t = performance.now();
      const useVectors = Boolean(db.model && embedder) && mode !== 'lexical';
      if (useVectors) query.vector = (await embedder.embed([text], { kind: 'query' })).vectors;
      timings.embedMs = performance.now() - t;
      t = performance.now();
      const bar = threshold === null ? {} : { minScore: threshold };
      const found = db.query(text, query.vector, { k, mode: useVectors ? mode : 'lexical', ...bar });
      timings.searchMs = performance.now() - t;
      const results = found.results.filter((r) => r.shown);
      const nearMisses = results.length ? [] : found.results.slice(0, NEAR_MISSES);
      return {
        results, nearMisses, ranked: found.results, answerable: found.answerable, confidence: found.confidence,
        evidence: found.evidence, query, timings, threshold: found.minScore,
      };
    },

    // A persona file (JSON text or object) for ask(); validated by the core.
    loadPersona(json) {
      this.persona?.dispose();
      this.persona = core.persona(json);
      return this.persona;
    },

    // One turn with the persona over a database. conversation: the state the
    // previous reply returned ({} for a new one). Resolves to the core's reply:
    // { answer, language, kind, declined, inRole, disclaimer, citations, state }.
    async ask(name, question, { conversation = {}, threshold = null } = {}) {
      if (!this.persona) throw new VesperError('invalid_argument', 'no persona loaded');
      const db = this.require(name);
      if (!question.trim()) throw new VesperError('empty_input', 'the question is empty');
      const vector = db.model && embedder ? (await embedder.embed([question], { kind: 'query' })).vectors : null;
      return this.persona.answer(db, question, vector, conversation, threshold === null ? {} : { threshold });
    },
    persona: null,

    // Frees every collection, the persona and the model's sessions.
    async dispose() {
      for (const db of collections.values()) db.dispose();
      collections.clear();
      this.persona?.dispose();
      this.persona = null;
      await embedder?.dispose?.();
    },
  };
  return engine;
}
