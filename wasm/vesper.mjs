// vesper's core as an ES module: the API the page, the embeddable component
// and the CLI use. A thin layer over the embind bindings that keeps bulk data
// off the slow path: vectors and pack bytes are copied once into wasm memory
// (staging views), never converted element by element.
//
//   const core = await loadCore({ wasmBinary });           // or { locateFile }
//   const db = core.collection('notes', model);            // model null: lexical only
//   db.add(core.chunk('a.md', text), vectors);             // Float32Array, chunks x dims
//   db.search('query', queryVector, { k: 5, threshold: 0.35 });
import createVesperCore from './vesper_core.mjs';

// Where a pack's head holds its size in bytes (after its magic, version and
// section count; core/collection/pack.cpp), little-endian u64.
const PACK_SIZE_AT = 16;

export async function loadCore(options = {}) {
  const module = await createVesperCore(options);
  return new Core(module);
}

class Core {
  constructor(m) {
    this.m = m;
    this.packVersion = m.packVersion;
    this.dotKernel = m.dotKernel();
  }

  #stageBytes(bytes) {
    const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    this.m.stagingBytes(u8.length).set(u8);
    return u8.length;
  }

  #stageFloats(floats) {
    if (!floats) return 0;
    if (!(floats instanceof Float32Array)) floats = Float32Array.from(floats);
    this.m.stagingFloats(floats.length).set(floats);
    return floats.length;
  }

  // bytes: a SentencePiece .model; policy: { addBos, addEos, bosId, eosId, padId }.
  tokenizer(bytes, policy = {}) {
    const n = this.#stageBytes(bytes);
    return new Tokenizer(this.m.Tokenizer.fromStaged(n, policy));
  }

  // Passages of one document: [{ id, title, text, source, begin, end, language }].
  chunk(source, text, options = {}, tokenizer = null) {
    return this.m.chunkDocument(source, text, options, tokenizer ? tokenizer.raw : null);
  }

  detectLanguage(text) {
    return this.m.detectLanguage(text);
  }

  // A passage's units as the persona reads them: [{ text, quotable, listItem, leadIn, question, heading, row, context }].
  sentences(text) {
    return this.m.sentences(text);
  }

  // model: { id, dims, queryTemplate, documentTemplate, tokenizerFingerprint } or null.
  collection(name, model = null, options = {}) {
    return new Collection(this, this.m.Collection.create(name, model, options));
  }

  // Throws an Error with code 'corrupt_data', 'unsupported' or 'model_mismatch'.
  // bytes: the pack, or where to read it, { size, read(view) } (read fills
  // the view with the pack's `size` bytes): a file is then read straight into
  // wasm memory, never held in JS as well (a large pack's load peaked at
  // twice its size; the CLI's fileSource).
  loadPack(bytes, expectedModel = null) {
    const count = this.m.loadPackStaged(this.#stagePack(bytes), expectedModel);
    const out = [];
    for (let i = 0; i < count; i++) out.push(new Collection(this, this.m.Collection.takeLoaded(i)));
    return out;
  }

  // The collections as pack bytes (a copy); with write(view), the bytes are
  // handed to it in pieces, in order (each view valid only during its call:
  // write it out, do not keep it), and their size returned, so a large pack
  // is never held whole, in wasm memory or in JS.
  savePack(collections, write = null) {
    const raws = collections.map((c) => c.raw);
    if (write) return this.m.savePackStream(raws, write);
    // Copied out as it is written: the pack's head (its first piece) gives
    // its size, so the copy is allocated once, and the core's heap, which
    // never shrinks, never holds the pack as well (a page that saves a
    // large database would keep that memory for as long as it is open).
    let out = null, at = 0;
    this.m.savePackStream(raws, (view) => {
      if (!out) out = new Uint8Array(Number(new DataView(view.buffer, view.byteOffset).getBigUint64(PACK_SIZE_AT, true)));
      out.set(view, at);
      at += view.length;
    });
    if (!out || at !== out.length) throw new Error(`the pack's head gave ${out?.length} bytes, ${at} were written`);
    return out;
  }

  // bytes: as loadPack takes them.
  inspectPack(bytes) {
    return this.m.inspectPackStaged(this.#stagePack(bytes));
  }

  #stagePack(bytes) {
    if (typeof bytes?.read !== 'function') return this.#stageBytes(bytes);
    bytes.read(this.m.stagingBytes(bytes.size));
    return bytes.size;
  }

  _stageFloats(floats) {
    return this.#stageFloats(floats);
  }

  _stageInts(ints) {
    const i32 = ints instanceof Int32Array ? ints : Int32Array.from(ints, Number);
    this.m.stagingInts(i32.length).set(i32);
    return i32.length;
  }

  // "{text}" / "{title}" templates (EmbeddingGemma's prompts).
  formatPrompt(template, text, title = '', titleFallback = 'none') {
    return this.m.formatPrompt(template, text, title, titleFallback);
  }

  // hidden: Float32Array [batch, seq, dims]; mask: [batch, seq]; mode: mean | cls | last.
  pool(hidden, mask, batch, seq, dims, mode = 'mean') {
    this.#stageFloats(hidden);
    this._stageInts(mask);
    return this.m.poolStaged(batch, seq, dims, mode);
  }

  // Keeps the first outDims of each row (Matryoshka) and renormalises.
  truncateNormalize(vectors, rows, inDims, outDims = inDims) {
    this.#stageFloats(vectors);
    return this.m.truncateNormalizeStaged(rows, inDims, outDims);
  }

  // A static (token table) embedding model the core runs itself.
  staticModel(bytes) {
    return this.#wrapStatic(this.m.StaticModel.fromStaged(this.#stageBytes(bytes)));
  }

  // The same model with none of its rows yet: row sets (a pack's, or blocks
  // of the table) are added as they arrive. A call that needs rows it lacks
  // throws an error with code 'missing_rows' and `rows` (their ids).
  sparseStaticModel(vocab, dims) {
    return this.#wrapStatic(this.m.StaticModel.sparse(vocab, dims));
  }

  #wrapStatic(raw) {
    const core = this;
    return {
      dims: raw.dims(),
      vocab: raw.vocab(),
      raw,
      get held() {
        return raw.held();
      },
      embed(ids) {
        return raw.embedStaged(core._stageInts(ids));
      },
      addRows(bytes) {
        raw.addRowsStaged(core.#stageBytes(bytes));
      },
      // The whole table (the model's file), when most rows are wanted.
      addTable(bytes) {
        raw.addTableStaged(core.#stageBytes(bytes));
      },
      // ids: sorted, distinct, held. Returns the row set's bytes.
      rowSet(ids) {
        return raw.rowSetStaged(core._stageInts(ids));
      },
      // Of ids, those not held yet (sorted, distinct).
      missing(ids) {
        return raw.missingStaged(core._stageInts(ids));
      },
      dispose() {
        raw.delete();
      },
    };
  }

  // A model's bilingual lexicon (its manifest's "lexicon" table, TSV bytes:
  // core/lexical/lexicon.h); collection.enableLexicon() lets BM25 match a
  // query's translation.
  lexicon(bytes) {
    return this.#wrapLexicon(this.m.Lexicon.fromStaged(this.#stageBytes(bytes)));
  }

  // The same lexicon served in shards ({ count, languages, maxWords, maxHan }):
  // a translation that needs a shard not added yet throws an error with code
  // 'missing_lexicon' and `shards` (their names).
  shardedLexicon(shape) {
    return this.#wrapLexicon(this.m.Lexicon.sharded(shape));
  }

  // A lexicon's TSV cut into `count` shards per language:
  // { languages, maxWords, maxHan, files: [{ name, text }] }.
  splitLexicon(bytes, count) {
    return this.m.Lexicon.splitStaged(this.#stageBytes(bytes), count);
  }

  #wrapLexicon(raw) {
    const core = this;
    return {
      // Counting reads every direction of the table (loading keeps them as text until used).
      get entries() {
        return raw.entries();
      },
      raw,
      translate(text, from, to) {
        return raw.translate(text, from, to);
      },
      // The first translation of each word, joined by glue: one string.
      translateFirst(text, from, to, glue = ' ') {
        return raw.translateFirst(text, from, to, glue);
      },
      addShard(name, bytes) {
        raw.addShardStaged(name, core.#stageBytes(bytes));
      },
      addTable(bytes) {
        raw.addTableStaged(core.#stageBytes(bytes));
      },
      dispose() {
        raw.delete();
      },
    };
  }

  // A collection cut into parts a static site serves as files
  // (core/collection/split.h): { entry, terms: [...], pages: [...],
  // matches: [...] }, each a Uint8Array; part "t<i>" is terms[i], "p<i>"
  // pages[i], "m<i>" matches[i].
  splitCollection(collection, options = {}) {
    return this.m.splitCollection(collection.raw, options);
  }

  // The entry of a split index (throws 'corrupt_data' or 'unsupported').
  splitIndex(bytes) {
    const raw = this.m.SplitIndex.fromStaged(this.#stageBytes(bytes));
    const core = this;
    return {
      raw,
      get termFragments() {
        return raw.termFragments();
      },
      get pageFragments() {
        return raw.pageFragments();
      },
      get matchFragments() {
        return raw.matchFragments();
      },
      get passages() {
        return raw.passages();
      },
      // An empty collection that ranks with the whole corpus's statistics; pages are added to it.
      makeCollection() {
        return new Collection(core, raw.makeCollection());
      },
      // The parts `query` still needs before `collection` ranks it as the whole pack would
      // ("t3", "m40", "p17"; term and match fragments first); [] when none. May throw 'missing_lexicon'.
      missing(query, collection, options = {}) {
        return raw.missing(query, collection.raw, options);
      },
      addTerms(fragment, bytes) {
        raw.addTermsStaged(fragment, core.#stageBytes(bytes));
      },
      addPages(fragment, bytes, collection) {
        raw.addPagesStaged(fragment, core.#stageBytes(bytes), collection.raw);
      },
      addMatches(fragment, bytes) {
        raw.addMatchesStaged(fragment, core.#stageBytes(bytes));
      },
      dispose() {
        raw.delete();
      },
    };
  }

  // A persona (JSON text or object, format "vesper-persona"); answers from a collection.
  persona(json) {
    return new Persona(this, this.m.Persona.fromJson(typeof json === 'string' ? json : JSON.stringify(json)));
  }
}

class Persona {
  constructor(core, raw) {
    this.core = core;
    this.raw = raw;
    this.name = raw.name();
    this.id = raw.id();
  }
  // state: { disclaimerShown, inRole, turns } (omit for a new conversation).
  // Resolves nothing asynchronously: the question's vector is computed by the
  // caller's embedder (query prompt), null for lexical collections.
  // Returns { answer, language, kind, declined, inRole, disclaimer, passageLanguages, citations, state }.
  answer(collection, question, vector = null, state = {}, options = {}) {
    const n = this.core._stageFloats(vector);
    return this.raw.answerStaged(collection.raw, question, n, state ?? {}, options);
  }
  usesBannedWord(text) {
    return this.raw.usesBannedWord(text);
  }
  // What the persona looks up for a question, and what to embed for it: the
  // question, or for "Who are you?" the same question about the persona's name.
  lookupText(question) {
    return this.raw.lookupText(question);
  }
  dispose() {
    this.raw.delete();
  }
}

class Tokenizer {
  constructor(raw) {
    this.raw = raw;
  }
  // { ids, attentionMask, pieces, begin, end, length, truncated };
  // options { addSpecial, maxLength, padTo, idsOnly } (idsOnly: no pieces, begin, end)
  encode(text, options = {}) {
    return this.raw.encode(text, options);
  }
  decode(ids) {
    return this.raw.decode(Array.from(ids));
  }
  countTokens(text) {
    return this.raw.countTokens(text);
  }
  get vocabSize() {
    return this.raw.vocabSize();
  }
  get fingerprint() {
    return this.raw.fingerprint();
  }
  get specialIds() {
    return { bos: this.raw.bosId(), eos: this.raw.eosId(), pad: this.raw.padId() };
  }
  idToPiece(id) {
    return this.raw.idToPiece(id);
  }
  dispose() {
    this.raw.delete();
  }
}

class Collection {
  constructor(core, raw) {
    this.core = core;
    this.raw = raw;
  }
  get name() {
    return this.raw.name();
  }
  rename(name) {
    this.raw.rename(name);
  }
  get size() {
    return this.raw.size();
  }
  get model() {
    return this.raw.model();
  }
  get usesHnsw() {
    return this.raw.usesHnsw();
  }
  // 'float32' | 'int8' | 'binary' (set with options.vectors at creation)
  get vectorFormat() {
    return this.raw.vectorFormat();
  }
  get bytesPerVector() {
    return this.raw.bytesPerVector();
  }
  // vectors: Float32Array of chunks.length x dims (omit for lexical-only collections).
  add(chunks, vectors = null) {
    const n = this.core._stageFloats(vectors);
    return this.raw.addStaged(chunks, n);
  }
  remove(id) {
    this.raw.remove(id);
  }
  // Building only to save (the CLI's build): from now on each passage's
  // record goes to `spill` ({ append(view), read(view, offset) }: bytes
  // kept in order; read fills the view from that offset and returns how
  // many, 0 at the end) and its text leaves memory. The collection can
  // then be saved, not searched. Only while empty.
  // With `spill.pieces` (another such spill), piece matching's lists go
  // there too rather than stay in memory until the save.
  spillTo(spill) {
    const message = (err) => String(err?.message ?? err) || 'failed';
    const wrap = (to) => ({
      append: (view) => {
        try {
          to.append(view);
          return null;
        } catch (err) {
          return message(err);
        }
      },
      read: (view, offset) => {
        try {
          return to.read(view, offset);
        } catch (err) {
          return message(err);
        }
      },
    });
    this.raw.spillTo(wrap(spill));
    if (spill.pieces) this.raw.spillPiecesTo(wrap(spill.pieces));
  }
  // options: { k = 10, threshold = 0.35, mode = 'hybrid' | 'vector' | 'lexical', exact }
  search(text, vector = null, options = {}) {
    const n = this.core._stageFloats(vector);
    return this.raw.searchStaged(text, n, options);
  }
  // A user's search: ranks, decides once whether the collection can answer
  // the query, and marks which results to show. options: { k = 10, mode,
  // minScore (the slider; default the calibration's floor), exact }.
  // Returns { results: [{ ...chunk, score, shown, ... }], answerable,
  // confidence, minScore, evidence }.
  query(text, vector = null, options = {}) {
    const n = this.core._stageFloats(vector);
    return this.raw.queryStaged(text, n, options);
  }
  // The model's answerability calibration (its manifest's "answerability"
  // object); without one, queries are decided by a cosine bar.
  setAnswerability(calibration) {
    this.raw.setAnswerability(typeof calibration === 'string' ? calibration : JSON.stringify(calibration));
  }
  // Hybrid search reranks by token-level matching with a static model's
  // table: tokenizer from core.tokenizer(), model from core.staticModel().
  enablePieceMatch(tokenizer, staticModel) {
    this.raw.enablePieceMatch(tokenizer.raw, staticModel.raw);
  }
  // Hybrid and lexical search also score the query's translation into the
  // collection's other languages: lexicon from core.lexicon().
  enableLexicon(lexicon) {
    this.raw.enableLexicon(lexicon.raw);
  }
  // The lowest similarity shown under an answerable query unless the user
  // moves the slider: the calibration's floor.
  get floor() {
    return this.raw.floor();
  }
  // Whether the answerability decision was calibrated for the model (its
  // manifest's "answerability"), or is a plain bar at its threshold.
  get calibrated() {
    return this.raw.calibrated();
  }
  // A copy of a stored (unit) vector, or null for lexical-only collections.
  vector(id) {
    const view = this.raw.vectorView(id);
    return view ? view.slice() : null;
  }
  chunks() {
    return this.raw.chunks();
  }
  // One passage by id ({ id, title, text, source, language, ... }), or null.
  chunk(id) {
    return this.raw.chunkById(String(id));
  }
  dispose() {
    this.raw.delete();
  }
}
