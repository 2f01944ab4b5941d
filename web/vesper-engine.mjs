// The site author's API: an engine over the WASM core, optionally with an
// embedding model, that stores knowledge bases as collections and searches
// them. Progress and errors are events/exceptions, not log lines.
//
//   const engine = await createEngine({ model: 'models/test/static-tiny/', onProgress });
//   await engine.store('notes', [{ source: 'a.md', text }], { onProgress });
//   const { results } = await engine.search('notes', 'question');
import { urlReader } from './engine/backend.mjs';
import { memoryAware, VesperError } from './engine/errors.mjs';
import { loadModel } from './engine/model.mjs';
import { openSplit } from './engine/split.mjs';
import { NO_META_TEXT, addChunks, calibrate, chunkDocuments, documentBatches, sizeOf, vectorOptionsFor } from './engine/kb.mjs';

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

// Where the core's module and .wasm are: beside this file (the assembled
// site, a package), or in a source checkout under Node, where tools/build.sh
// leaves them in build-wasm/wasm/ ($VESPER_WASM_DIR says otherwise).
async function defaultCoreBase() {
  const beside = new URL('wasm/', here);
  if (here.protocol !== 'file:') return beside;
  const { existsSync } = await import('node:fs');
  const { pathToFileURL } = await import('node:url');
  if (process.env.VESPER_WASM_DIR) return pathToFileURL(`${process.env.VESPER_WASM_DIR.replace(/\/?$/, '/')}`);
  return existsSync(new URL('vesper_core.wasm', beside)) ? beside : new URL('../build-wasm/wasm/', here);
}

// The WASM core alone (createEngine loads it too): what the CLI's inspect
// and the tests need.
export async function openCore({ coreBase = null, onProgress = null } = {}) {
  const coreUrl = coreBase ? new URL(coreBase, here) : await defaultCoreBase();
  // The module and the binary are fetched side by side.
  const module = import(new URL('vesper.mjs', coreUrl).href);
  module.catch(() => {});
  let wasmBinary;
  try {
    wasmBinary = await fetchWithProgress(new URL('vesper_core.wasm', coreUrl), 'vesper core', onProgress);
  } catch (err) {
    if (err.code !== 'not_found' || coreUrl.protocol !== 'file:') throw err;
    throw new VesperError('not_found', `the vesper core is not in ${decodeURIComponent(coreUrl.pathname)}: build it with tools/build.sh (or set VESPER_WASM_DIR)`, { cause: err });
  }
  const { loadCore } = await module;
  return loadCore({ wasmBinary });
}

// model: a model folder (web/engine/model.mjs), or null for lexical search.
// A model that cannot be loaded is not fatal here: search is lexical and
// onNotice(text) says why; onNotice also tells of WebGPU lost mid-session.
// coreBase: where the core's vesper.mjs and vesper_core.wasm are.
export async function createEngine({ model = null, onProgress = null, onNotice = null, preferWebGPU = true, coreBase = null } = {}) {
  const t0 = performance.now();
  const core = await openCore({ coreBase, onProgress });
  const engine = engineOver(core, { onProgress, onNotice, preferWebGPU });
  await engine.tryModel(model);
  engine.loadMs = performance.now() - t0;
  return engine;
}

function engineOver(core, { onProgress, onNotice, preferWebGPU }) {
  let embedder = null;
  // A database's vectors are only comparable with the model that made them
  // (a pack of another model is refused at load; one stored before
  // useModel() changed the model answers lexically).
  const sameModel = (db) => Boolean(db.model && embedder && db.model.id === embedder.info.id && db.model.dims === embedder.info.dims);
  const queryVector = (text) => embedder.embed([text], { kind: 'query' });
  // A core call that may need parts of the model's tables not loaded yet (web/engine/on-demand.mjs).
  const withParts = (fn) => (embedder?.withParts ? embedder.withParts(fn) : fn());
  // The query's vector (when `embed`) while a split fetches what each of
  // `lookups` needs, in order: each fetches its own parts (model rows,
  // fragments). Resolves to the embedding, or null.
  const embedAndPrepare = async (db, text, embed, lookups = [text]) => {
    const prepare = async () => {
      for (const lookup of lookups) await withParts(() => db.prepare(lookup));
    };
    const [embedded] = await Promise.all([embed ? queryVector(text) : null, db.prepare ? prepare() : null]);
    return embedded;
  };
  const collections = new Map();
  // The loaded model as loadModel chose it (its backend may change later).
  let active = null;
  const lost = (now) => {
    Object.assign(engine.backend, { name: now.backend, reason: now.reason });
    engine.notice = `${now.reason}.`;
    onNotice?.(engine.notice);
  };

  const yieldEvery = typeof document !== 'undefined';  // a page stays responsive while it builds
  const newCollection = (name, model, vectors) => calibrate(core.collection(name, model?.info ?? null, vectorOptionsFor(vectors)), model);

  // A collection of `chunks` embedded with `model` (null: lexical), ready to
  // search; nothing is left behind if it fails.
  async function buildCollection(name, chunks, model, { vectors = 'auto', onProgress: progress = null, signal = null, onWarning = null } = {}) {
    const db = newCollection(name, model, vectors);
    try {
      const { warnings } = await addChunks(db, chunks, model, { onProgress: progress, signal, yieldEvery });
      for (const w of warnings) onWarning?.(w);
      return db;
    } catch (err) {
      db.dispose();
      throw err;
    }
  }

  // A collection built from documents a batch at a time (chunked, embedded,
  // added, let go), so memory follows a batch and the index, not the
  // knowledge base; progress counts characters of text.
  async function streamCollection(name, docs, model, { vectors, chunking, onProgress: progress, signal, onWarning, spill }) {
    const db = newCollection(name, model, vectors);
    try {
      if (spill) db.spillTo(spill);
      const total = docs.reduce((n, d) => n + sizeOf(d), 0);
      let done = 0;
      for (const { docs: batch, size } of documentBatches(docs)) {
        const chunks = chunkDocuments(core, batch, chunking);
        const within = (p) => progress?.({ done: done + Math.round((size * p.done) / Math.max(1, p.total)), total });
        const { warnings } = await addChunks(db, chunks, model, { onProgress: within, signal, yieldEvery });
        for (const w of warnings) onWarning?.(w);
        done += size;
        progress?.({ done, total });
      }
      if (!db.size) throw new VesperError('empty_input', 'the knowledge base is empty: there is nothing to store');
      return db;
    } catch (err) {
      db.dispose();
      throw err;
    }
  }

  const engine = {
    core,
    backend: null,
    notice: null,
    loadMs: 0,
    get embedder() {
      return embedder;
    },
    get model() {
      return embedder?.info ?? null;
    },
    // Loads what the first query in each language would otherwise load: the
    // lexicon reads a translation direction only when a query first needs it
    // (cold loads stay short), ~30 ms each. A page calls this when idle after
    // its first results. Returns the lexicon's entries (0 without one).
    warm() {
      return embedder?.lexicon?.entries ?? 0;
    },
    // The loaded model's manifest and folder (null with no model).
    get manifest() {
      return active?.manifest ?? null;
    },
    get folder() {
      return active?.folder ?? null;
    },
    collections,

    // Loads a model (a folder; variant and dims default to its manifest's;
    // files: more folders its files may be in; cached: downloaded into the
    // browser's Cache Storage, see web/engine/download.mjs) for what is
    // stored and searched from now on, replacing the current one; throws a
    // VesperError if it cannot. Databases keep the model they were built
    // with: one of another model answers lexically until re-embedded.
    async useModel(folder, options = {}) {
      return engine.switchModel(folder, { ...options, reembed: {} });
    },

    // useModel(), and re-embeds databases with the new model, all or
    // nothing: reembed maps a database's name to its knowledge base's
    // documents ([{ source, text }], chunked again with the new model's
    // tokenizer) or to null (its passages kept as they are, given new
    // vectors). The model is loaded and the databases rebuilt beside the
    // current ones; only when all of it succeeded do they replace them, so
    // a failure or a cancel (signal) leaves the model and every database as
    // they were. onProgress({ stage: 'download' | 'embed', label, done, total }).
    async switchModel(folder, { variant = null, dims = null, files = [], cached = false, reembed = {}, metaText = NO_META_TEXT, onProgress: progress = onProgress, signal = null } = {}) {
      // Out of memory (a model too large for this device) is named as such.
      const what = `the model in ${folder}`;
      let chosen;
      try {
        chosen = await loadModel({ core, model: folder, files, cached, variant, dims, preferWebGPU, onProgress: progress, onSwitch: (now) => now.embedder === embedder && lost(now) });
      } catch (err) {
        throw memoryAware(err, what);
      }
      const rebuilt = new Map();
      try {
        for (const [name, docs] of Object.entries(reembed)) {
          const chunks = docs ? chunkDocuments(core, docs, { tokenizer: chosen.embedder.tokenizer, metaText }) : engine.require(name).chunks();
          const embedProgress = (p) => progress?.({ stage: 'embed', label: name, ...p });
          rebuilt.set(name, await buildCollection(name, chunks, chosen.embedder, { onProgress: embedProgress, signal }));
        }
      } catch (err) {
        for (const db of rebuilt.values()) db.dispose();
        await chosen.embedder.dispose?.();
        throw memoryAware(err, `re-embedding with ${chosen.embedder.info?.id ?? what}`);
      }
      await embedder?.dispose?.();
      active = chosen;
      embedder = chosen.embedder;
      engine.backend = { name: chosen.backend, reason: chosen.reason };
      engine.notice = null;
      for (const [name, db] of rebuilt) {
        collections.get(name)?.dispose();
        collections.set(name, db);
      }
      return embedder.info;
    },

    // useModel(), where a model that cannot be loaded (or none) leaves
    // search lexical, with a notice saying so (onNotice).
    async tryModel(folder, options = {}) {
      if (!folder) {
        engine.notice = 'No embedding model: search is lexical only.';
      } else {
        try {
          await engine.useModel(folder, options);
        } catch (err) {
          engine.notice = `The embedding model could not be loaded (${err.message}): search is lexical only.`;
        }
      }
      if (engine.notice) onNotice?.(engine.notice);
      return engine.model;
    },

    // docs: [{ source, text, size? }] (text may be a getter read when its
    // batch is built, size then its bytes). Chunks, embeds and indexes, a batch of
    // documents at a time; replaces a collection of the same name only once
    // everything succeeded. onProgress({ done, total }): characters of text.
    // metaText: what is about the knowledge base itself (metaTextOf(persona));
    // vectors: how they are stored ('auto': float32, turned int8 from
    // INT8_FROM_PASSAGES passages; 'float32', 'int8', 'binary');
    // maxTokens: the chunker's bound; onWarning({ chunk, message }): a chunk
    // the model could not take whole; spill: where the passages' records go
    // when the database is built only to be saved (Collection.spillTo: the
    // CLI's build), so that its text is not held.
    async store(name, docs, { onProgress: progress = null, signal = null, metaText = NO_META_TEXT, vectors = 'auto', maxTokens = null, onWarning = null, spill = null } = {}) {
      const chunking = { tokenizer: embedder?.tokenizer ?? null, metaText, maxTokens };
      const db = await streamCollection(name, docs, embedder, { vectors, chunking, onProgress: progress, signal, onWarning, spill });
      collections.get(name)?.dispose();
      collections.set(name, db);
      return db;
    },

    // Loads every collection of a pack; refused if made by another model,
    // unless anyModel (it is then searched lexically until re-embedded).
    // A collection replaces the database of its name, or with keepBoth is
    // kept beside it as "name (2)", "name (3)", ... (also avoiding the names
    // in `reserved`, e.g. damaged databases still in storage), and
    // onRename(from, to) is told.
    loadPack(bytes, { keepBoth = false, reserved = [], onRename = null, anyModel = false } = {}) {
      const loaded = core.loadPack(bytes, anyModel ? null : embedder?.info ?? null);
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

    // A knowledge base a site serves in parts (web/engine/split.mjs): `url`
    // is its folder (holding index.vsx); each query fetches what it needs.
    // Refused if made by another model, unless anyModel. Resolves to its name.
    async openSplit(url, { anyModel = false, pages = null } = {}) {
      const folder = new URL(String(url).replace(/\/?$/, '/'), typeof location === 'undefined' ? undefined : location.href);
      const db = await openSplit(core, urlReader(folder), { pages });
      if (db.model && embedder && !anyModel && !sameModel(db)) {
        const made = db.model.id;
        db.dispose();
        throw new VesperError('model_mismatch', `the index at ${folder} was made with the model '${made}', not '${embedder.info.id}'`);
      }
      calibrate(db, embedder);
      collections.get(db.name)?.dispose();
      collections.set(db.name, db);
      return db.name;
    },

    // The database as pack bytes; with write(view) (e.g. a file write), the
    // bytes go to it in pieces, in order, without a copy (each view valid
    // only during its call), and their size is returned.
    exportPack(name, { write = null } = {}) {
      return core.savePack([this.require(name)], write);
    },

    remove(name) {
      collections.get(name)?.dispose();
      collections.delete(name);
    },

    // The bar a database's results must reach unless the user moves the
    // slider: its calibration's floor (on the hybrid ranking score), or 0 for
    // lexical databases and vector-only ranking (the cosine).
    defaultThreshold(name, mode = 'hybrid') {
      const db = this.require(name);
      // The core keeps it as a float: 0.456 comes back as 0.456000000238.
      return db.model && mode === 'hybrid' ? Number(db.floor.toFixed(6)) : 0;
    },

    // Whether a database's bar was calibrated for its model, or is the
    // manifest's plain threshold (a model shipped without a calibration).
    calibrated(name) {
      const db = this.require(name);
      return Boolean(db.model) && db.calibrated;
    },

    require(name) {
      const db = collections.get(name);
      if (!db) throw new VesperError('not_found', `no database '${name}'`);
      return db;
    },

    // Resolves to { results, nearMisses, ranked, answerable, confidence,
    // evidence, query: { pieces, ids, length, vector }, timings, threshold,
    // warnings (a query longer than the model takes) }:
    // the core decides once whether the database answers the query (unsure:
    // it does not, but not clearly: say so beside the near misses);
    // `results` are the passages shown (fused order, at or above `threshold`:
    // the slider, default the calibration's floor), `nearMisses` the nearest
    // passages when nothing is shown, so the user is never left empty-handed.
    // `weights`: ranking weights other than the defaults ({ translatedWeight,
    // pageWeight }: core/search/query.h), for evaluations that choose them;
    // `filters`: { key: value | [values] }, only passages of pages a site
    // marked so (data-vesper-filter) are searched.
    async search(name, text, { k = 10, threshold = null, mode = 'hybrid', padTo = 64, weights = {}, filters = null } = {}) {
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
      const useVectors = sameModel(db) && mode !== 'lexical';
      let warnings = [];
      const embedded = await embedAndPrepare(db, text, useVectors);
      if (embedded) ({ vectors: query.vector, warnings } = embedded);
      timings.embedMs = performance.now() - t;
      t = performance.now();
      const bar = threshold === null ? {} : { minScore: threshold };
      await db.whenReady?.();
      const options = { ...weights, k, mode: useVectors ? mode : 'lexical', ...bar, ...(filters ? { filters } : {}) };
      const found = await withParts(() => db.query(text, query.vector, options));
      timings.searchMs = performance.now() - t;
      const results = found.results.filter((r) => r.shown);
      const nearMisses = results.length ? [] : found.results.slice(0, NEAR_MISSES);
      return {
        results, nearMisses, ranked: found.results, answerable: found.answerable, unsure: found.unsure, confidence: found.confidence,
        evidence: found.evidence, query, timings, threshold: found.minScore, warnings,
      };
    },

    // A persona file (JSON text or object) for ask(); validated by the core.
    loadPersona(json) {
      this.persona?.dispose();
      this.persona = core.persona(json);
      // What grounded generation reads (identity, structure, banned words: web/engine/grounded.mjs).
      this.personaFile = typeof json === 'string' ? JSON.parse(json) : json;
      return this.persona;
    },
    personaFile: null,

    // One turn with the persona over a database. conversation: the state the
    // previous reply returned ({} for a new one). Resolves to the core's reply:
    // { answer, language, kind, declined, inRole, disclaimer, unsure, citations, state }.
    async ask(name, question, { conversation = {}, threshold = null } = {}) {
      if (!this.persona) throw new VesperError('invalid_argument', 'no persona loaded');
      const db = this.require(name);
      if (!question.trim()) throw new VesperError('empty_input', 'the question is empty');
      // A question about the last topic ("and why?") is looked up with it
      // (core/persona/answer.cpp): a split fetches for that text too. "Who are
      // you?" is looked up, and embedded, as a question about the persona's name.
      const topic = typeof conversation?.topic === 'string' ? conversation.topic : '';
      const lookup = this.persona.lookupText(question);
      const embedded = await embedAndPrepare(db, lookup, sameModel(db), topic ? [lookup, `${lookup}\n${topic}`] : [lookup]);
      const vector = embedded ? embedded.vectors : null;
      await db.whenReady?.();
      return withParts(() => this.persona.answer(db, question, vector, conversation, threshold === null ? {} : { threshold }));
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
