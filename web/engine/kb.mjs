// Knowledge base -> collection, the one way every client does it (the page's
// engine, the CLI's build, the evaluation): chunk each document (marking the
// persona's meta sections), embed each chunk as a document with its heading
// trail as the title, add them in batches, and give the collection its
// model's answerability calibration.
import { VesperError } from './errors.mjs';

// How a chunk's heading trail is written into its document prompt; the
// vectors of one collection are only comparable if all were made this way.
export const titleOf = (chunk) => chunk.title.join(' > ');

// From this many passages a database's vectors are stored as int8 (one
// scale per vector: a quarter of the bytes, cosines within ~0.01) unless
// asked otherwise: below it a pack is mostly text and the saving is small;
// past it float32 vectors were half of a pack (bench/results/pack-load.json).
// (The core builds HNSW later still, where an exact scan would read 8 MiB of
// vectors: CollectionOptions::hnsw_min_size.)
export const INT8_FROM_PASSAGES = 4096;

// The collection options for a storage format: 'auto' (the default) is
// float32 that the core turns int8 once INT8_FROM_PASSAGES passages are in
// (CollectionOptions::int8_from), so a database built batch by batch need
// not know its size up front; any other format is taken as asked.
export function vectorOptionsFor(requested = 'auto') {
  return requested === 'auto' ? { vectors: 'float32', int8From: INT8_FROM_PASSAGES } : { vectors: requested };
}

// A document's size for batching and progress: its `size` when it gives one
// (a file read only when its batch is built: bytes), else its text's length.
export const sizeOf = (d) => d.size ?? d.text.length;

// Documents in groups of about `chars` characters of text (at least one
// each), so that a large knowledge base is chunked and embedded a group at a
// time and never held as passages all at once: { docs, size } per group.
export function* documentBatches(docs, chars = BATCH_CHARS) {
  let batch = [], size = 0;
  for (const d of docs) {
    batch.push(d);
    size += sizeOf(d);
    if (size >= chars) {
      yield { docs: batch, size };
      batch = [];
      size = 0;
    }
  }
  if (batch.length) yield { docs: batch, size };
}
// About 300 passages of text: big enough that a batch of embeddings keeps
// the model busy, small enough that memory follows the batch, not the corpus.
const BATCH_CHARS = 1 << 17;

// docs: [{ source, text, language?, fields? }] (language: the document's
// own, e.g. a page's <html lang>, else each passage's is detected; fields:
// its page's [{ key, value, filter }], given to each of its passages);
// options: { tokenizer,
// metaText, maxTokens } (metaText: metaTextOf(persona)).
export function chunkDocuments(core, docs, { tokenizer = null, metaText = NO_META_TEXT, maxTokens = null } = {}) {
  const options = { metaHeadings: metaText.headings, metaOpenings: metaText.openings };
  if (maxTokens) options.maxTokens = maxTokens;
  return docs.flatMap((d) => {
    const chunks = core.chunk(d.source, d.text, options, tokenizer);
    const language = typeof d.language === 'string' && d.language ? d.language.split('-')[0].toLowerCase() : null;
    if (language) for (const c of chunks) c.language = language;
    if (Array.isArray(d.fields) && d.fields.length) for (const c of chunks) c.fields = d.fields;
    return chunks;
  });
}

export const NO_META_TEXT = Object.freeze({ headings: [], openings: [] });

// What a persona file marks as text about the knowledge base itself: the
// headings of such sections and the openings of such passages (a preamble
// no heading covers).
export function metaTextOf(persona) {
  const strings = (v) => (Array.isArray(v) ? v.filter((h) => typeof h === 'string') : []);
  return { headings: strings(persona?.meta_sections), openings: strings(persona?.meta_passages) };
}

// Equips a collection with what its model offers search: the manifest's
// answerability calibration (else a plain cosine bar at its threshold),
// for a static model token-level reranking with its table, and its lexicon
// for BM25 across languages.
export function calibrate(db, embedder) {
  const manifest = embedder?.manifest;
  if (!db.model || !manifest) return db;
  if (embedder.pieceModel) enablePieceMatch(db, embedder);
  if (embedder.lexicon) db.enableLexicon(embedder.lexicon);
  if (manifest.answerability) {
    db.setAnswerability(manifest.answerability);
  } else if (typeof manifest.threshold === 'number') {
    const slope = 20;
    db.setAnswerability({
      calibrated: false, floor: manifest.threshold,
      languages: { '*': { bias: -slope * manifest.threshold, weights: { best_cosine: slope } } },
    });
  }
  return db;
}

// A pack that does not carry the model rows its passages use, with a model
// loaded row by row: they are fetched in the background, and search and ask
// wait for db.whenReady() (which, after a failed fetch, fails that query
// with its cause and tries again for the next).
function enablePieceMatch(db, embedder) {
  const enable = () => db.enablePieceMatch(embedder.tokenizer, embedder.pieceModel);
  try {
    enable();
  } catch (err) {
    if (err?.code !== 'missing_rows') throw err;
    let attempt = embedder.withParts(enable);
    attempt.catch(() => {});  // reported by the query that waits for it
    db.whenReady = () => attempt.catch((failure) => {
      attempt = embedder.withParts(enable);
      attempt.catch(() => {});
      throw failure;
    });
  }
}

const cancelled = () => new VesperError('cancelled', 'storing was cancelled');

// Embeds and adds chunks to `db` in batches; reports progress, honours an
// AbortSignal between batches, and yields so a page can paint. Returns the
// number of chunks added and the embedder's warnings.
export async function addChunks(db, chunks, embedder, { batch = 16, onProgress = null, signal = null, yieldEvery = true } = {}) {
  let added = 0;
  const warnings = [];
  for (let i = 0; i < chunks.length; i += batch) {
    if (signal?.aborted) throw cancelled();
    const part = chunks.slice(i, i + batch);
    let vectors = null;
    if (embedder && db.model) {
      const out = await embedder.embed(part.map((c) => c.text), { kind: 'document', titles: part.map(titleOf), languages: part.map((c) => c.language) });
      for (const w of out.warnings) warnings.push({ ...w, chunk: part[w.index] });
      vectors = out.vectors;
    }
    // Piece matching may need rows of the model the embedding did not (the
    // heading trail is tokenised apart): fetched, then added.
    added += embedder?.withParts ? await embedder.withParts(() => db.add(part, vectors)) : db.add(part, vectors);
    onProgress?.({ done: Math.min(i + batch, chunks.length), total: chunks.length });
    if (yieldEvery) await new Promise((r) => setTimeout(r, 0));
  }
  return { added, warnings };
}

// How a citation is named for people: the passage's own section and the
// document's own name (its top heading), not a hashed file name.
export function citationLabel(c) {
  const title = c.title ?? [];
  const document = title.length > 1 ? title[0] : String(c.source ?? '').replace(/_[0-9a-f]{16}(?=\.)/, '').replace(/\.[a-z]+$/i, '');
  const section = title.length ? title.at(-1) : '';
  return section && section !== document ? `${section} · ${document}` : document || section;
}
