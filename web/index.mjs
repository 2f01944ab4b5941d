// vesper's API for site authors and Node scripts: one object over the engine
// (web/vesper-engine.mjs), the same in browsers and in Node 20.
//
//   import { create } from 'vesper';
//   const v = await create({ pack: 'kb.pack', persona: 'persona.json' });
//   const { results, answerable } = await v.search('why cameras?');
//   const { answer, citations } = await v.ask('why cameras?');
//   await v.add('notes', [{ source: 'a.md', text }]);
//   const bytes = v.save('notes');
//   await v.dispose();
//
// Every failure is a VesperError with a stable `code`. Progress and a model
// falling back (to lexical search, or from WebGPU to WASM) are events on the
// object ('progress', 'fallback'), also given to create() as callbacks since
// they begin before it resolves.
import { createEngine } from './vesper-engine.mjs';
import { readSource } from './engine/backend.mjs';
import { downloadModel } from './engine/download.mjs';
import { readManifest } from './engine/model.mjs';
import { VesperError } from './engine/errors.mjs';
import { SPLIT_ENTRY, describeSplit } from './engine/split.mjs';

export { VesperError };

const here = new URL('./', import.meta.url);
// Where a pack's model is looked for when create() is not told: the shipped
// default's folder (first, so the usual case requests nothing that is not
// there), then a folder named as the model; in the assembled site (beside
// this file), then in a source checkout (beside web/).
const MODEL_FOLDERS = (id) => ['./', '../'].flatMap((root) => [`${root}models/default/`, `${root}models/${id}/`]).map((f) => new URL(f, here));

// Runs f, turning whatever it throws into a VesperError.
async function guarded(f) {
  try {
    return await f();
  } catch (err) {
    throw VesperError.from(err);
  }
}

// The folder holding model `id`'s manifest, or null for none (lexical).
async function modelFolder(id, what) {
  if (!id) return null;
  for (const folder of MODEL_FOLDERS(id)) {
    try {
      const manifest = JSON.parse(new TextDecoder().decode(await readSource(new URL('manifest.json', folder))));
      if (manifest.id === id) return folder;
    } catch {
      // not there: the next folder
    }
  }
  throw new VesperError('model_unavailable', `${what} was built with model '${id}', which is in none of ${MODEL_FOLDERS(id).map((u) => u.pathname).join(', ')}: pass create({ model })`);
}

// The folder of the model a pack was built with, or null for lexical packs.
const modelOfPack = (core, bytes) => modelFolder(core.inspectPack(bytes).collections.find((c) => c.model)?.model.id ?? null, 'the pack');

// A split index's folder as a URL: a URL, or (Node) a path.
async function folderOf(source) {
  const text = String(source).replace(/\/?$/, '/');
  if (source instanceof URL || typeof location !== 'undefined' || /^[a-z][a-z0-9+.-]*:/i.test(text)) {
    return new URL(text, typeof location === 'undefined' ? undefined : location.href);
  }
  const { pathToFileURL } = await import('node:url');
  return pathToFileURL(text);
}

// The model a split index was built with (its entry names it), as modelOfPack.
async function modelOfSplit(core, folder) {
  const { model } = describeSplit(core, await readSource(new URL(SPLIT_ENTRY, folder)));
  return modelFolder(model?.id ?? null, 'the split index');
}

async function personaText(persona) {
  if (typeof persona === 'object' && !(persona instanceof URL) && !ArrayBuffer.isView(persona)) return JSON.stringify(persona);
  if (typeof persona === 'string' && persona.trimStart().startsWith('{')) return persona;
  return new TextDecoder().decode(await readSource(persona));
}

export class Vesper extends EventTarget {
  #engine;
  #database;

  constructor(engine, database) {
    super();
    this.#engine = engine;
    this.#database = database;
  }

  // The model in use ({ id, dims, ... }) or null when search is lexical.
  get model() {
    return this.#engine.model;
  }

  get backend() {
    return this.#engine.backend;
  }

  get databases() {
    return [...this.#engine.collections.keys()];
  }

  #db(database) {
    const name = database ?? this.#database;
    if (!name) throw new VesperError('not_found', 'no database yet: create({ pack }) or add() one first');
    return name;
  }

  // Resolves to { results, nearMisses, answerable, confidence, threshold };
  // with diagnostics: true also { query: { pieces, ids, vector }, ranked,
  // evidence, timings } (padded ids, as the demo page draws them).
  search(text, { k = 5, threshold = null, database = null, mode = 'hybrid', filters = null, diagnostics = false } = {}) {
    return guarded(async () => {
      const r = await this.#engine.search(this.#db(database), text, { k, threshold, mode, filters, padTo: diagnostics ? 64 : 0 });
      const out = { results: r.results, nearMisses: r.nearMisses, answerable: r.answerable, unsure: r.unsure, confidence: r.confidence, threshold: r.threshold };
      return diagnostics ? { ...out, query: r.query, ranked: r.ranked, evidence: r.evidence, timings: r.timings } : out;
    });
  }

  // The persona answers from the database. conversation: the `conversation`
  // of the previous reply ({} or omitted for a new one). Resolves to
  // { answer, kind, language, citations, conversation, ... }.
  ask(text, { conversation = {}, database = null, threshold = null } = {}) {
    return guarded(async () => {
      const reply = await this.#engine.ask(this.#db(database), text, { conversation, threshold });
      return { ...reply, conversation: reply.state };
    });
  }

  // docs: [{ source, text }] or strings. Chunks, embeds and indexes them as
  // the database `name` (replacing it once all succeeded); it becomes the
  // default database if there was none.
  add(name, docs, { onProgress = null, signal = null } = {}) {
    return guarded(async () => {
      const list = docs.map((d, i) => (typeof d === 'string' ? { source: `${name}-${i + 1}.txt`, text: d } : d));
      const db = await this.#engine.store(name, list, {
        signal,
        onProgress: (p) => {
          onProgress?.(p);
          this.dispatchEvent(Object.assign(new Event('progress'), { detail: { stage: 'embed', database: name, ...p } }));
        },
      });
      this.#database ??= name;
      return { database: name, passages: db.size };
    });
  }

  // Switches to another model (a folder) and re-embeds every database with
  // it, all or nothing (engine.switchModel): a failure or a cancel leaves
  // the model and the databases as they were. download: in a browser, fetch
  // its files into Cache Storage first (resumable, size- and hash-checked:
  // web/engine/download.mjs; in Node `vesper fetch-model` does that).
  // onProgress({ stage: 'download' | 'embed', label, done, total }).
  useModel(model, { variant = null, download = false, onProgress = null, signal = null } = {}) {
    return guarded(async () => {
      if (download) {
        const manifest = await readManifest(model);
        await downloadModel(manifest, variant ?? manifest.defaultVariant, { onProgress, signal });
      }
      const reembed = Object.fromEntries(this.databases.map((name) => [name, null]));
      return this.#engine.switchModel(model, { variant, cached: download, reembed, onProgress, signal });
    });
  }

  // The database as .pack bytes (load them with create({ pack })).
  save(database = null) {
    try {
      return this.#engine.exportPack(this.#db(database));
    } catch (err) {
      throw VesperError.from(err);
    }
  }

  dispose() {
    return guarded(() => this.#engine.dispose());
  }
}

// pack: bytes, a URL or (Node) a path; split: the folder `vesper split`
// wrote (a URL or a path), for a site too large to load whole: fetched in
// parts as queries need them; model: a model folder, null for
// lexical search, omitted for the pack's own; persona: a persona file (URL,
// path, JSON text or object); database: the default for search and ask (else
// the pack's first). onProgress({ stage, label, done, total }),
// onFallback({ reason }).
export async function create({ pack = null, split = null, model = undefined, persona = null, database = null, onProgress = null, onFallback = null, preferWebGPU = true } = {}) {
  return guarded(async () => {
    const bytes = pack === null ? null : await readSource(pack);
    const splitFolder = split === null ? null : await folderOf(split);
    let v = null;
    let asked = false;
    // Before create() resolves only onFallback can hear it; later the event too.
    const fallback = (reason) => {
      const detail = { reason };
      v?.dispatchEvent(Object.assign(new Event('fallback'), { detail }));
      onFallback?.(detail);
    };
    // A model asked for but not loaded, or WebGPU lost: reported, not fatal.
    const engine = await createEngine({ model: null, preferWebGPU, onProgress, onNotice: (text) => asked && fallback(text) });
    try {
      const folder = model !== undefined ? model
        : bytes ? await modelOfPack(engine.core, bytes) : splitFolder ? await modelOfSplit(engine.core, splitFolder) : null;
      asked = Boolean(folder);
      await engine.tryModel(folder);
      const names = bytes ? engine.loadPack(bytes) : [];
      if (splitFolder) names.push(await engine.openSplit(splitFolder));
      if (persona !== null) engine.loadPersona(await personaText(persona));
      if (database && !names.includes(database)) throw new VesperError('not_found', `the pack has no database '${database}' (it has ${names.join(', ') || 'none'})`);
      v = new Vesper(engine, database ?? names[0] ?? null);
      return v;
    } catch (err) {
      await engine.dispose();
      throw err;
    }
  });
}
