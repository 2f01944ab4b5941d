// A model's big tables on demand. The default model's table (8 MB) and
// lexicon (4 MB) were most of a cold page's download, and a query needs a
// few dozen of the table's 32k rows and a few of the lexicon's words. A site
// serves both also in parts (manifest `static.blocks`: { dir, rows } and
// `lexicon.shards`: { dir, count, languages, maxWords, maxHan }, written by
// `vesper model-parts` (tools/cli/model-parts.mjs) through blockFiles() and lexiconShardFiles()
// below); a pack carries the rows its passages use (the core's rows section),
// and a query fetches the parts its words need. The core never guesses: a
// call that needs a part it lacks throws 'missing_rows' (err.rows: ids) or
// 'missing_lexicon' (err.shards: names) before it changes anything, and
// withParts() fetches them and repeats the call. Where most of a table is
// wanted at once, or a part cannot be used, the whole file comes instead.
import { VesperError } from './errors.mjs';

// A block is read whole: 4 rows of 260 bytes (int8 and a scale) is ~1 kB.
// A query's pieces fall in about as many blocks whatever their size, so a
// small block is fewer bytes: blocks of 64 rows made a split site's query
// fetch ~250 kB of them; of 16, on the 10,000-page benchmark a query's
// 90th-percentile download was 143 kB against 116 kB with 4
// (bench/pagefind/SPLIT-TUNING.md).
export const ROWS_PER_BLOCK = 4;
// 512 per language: ~2.5 kB of the default lexicon each (~1.2 kB compressed);
// a query reads one per distinct word (and dictionary form).
export const LEXICON_SHARDS = 512;
// Past this share of a table's parts in one go, or past this many requests
// (re-embedding a knowledge base asks for thousands of small blocks a
// batch), one request for the file.
const WHOLE_TABLE_SHARE = 1 / 8;
const MAX_PARTS_AT_ONCE = 256;
// A call asks again after each fetch: a query's pieces, then its
// translation's, then words a phrase lookup revealed. More is a bug.
const MAX_ROUNDS = 10;
const FETCHES_AT_ONCE = 16;  // a browser queues past its own limit per host

export const blockName = (dir, index) => `${dir}${index}.vrow`;
export const shardName = (dir, name) => `${dir}${name}.tsv`;

// The model's blocks as files: [{ path, bytes }]. model: a fully loaded core.staticModel().
export function blockFiles(model, { dir = 'rows/', rows = ROWS_PER_BLOCK } = {}) {
  const files = [];
  for (let first = 0; first < model.vocab; first += rows) {
    const ids = Int32Array.from({ length: Math.min(rows, model.vocab - first) }, (_, i) => first + i);
    files.push({ path: blockName(dir, first / rows), bytes: model.rowSet(ids) });
  }
  return files;
}

// A lexicon's shards as files, and the manifest entry that describes them.
export function lexiconShardFiles(core, tsv, { dir = 'lexicon/', count = LEXICON_SHARDS } = {}) {
  const split = core.splitLexicon(tsv, count);
  const shards = { dir, count, languages: split.languages, maxWords: split.maxWords, maxHan: split.maxHan };
  return { shards, files: split.files.map((f) => ({ path: shardName(dir, f.name), bytes: new TextEncoder().encode(f.text) })) };
}

// fn over items, `size` at a time (each next one starts as one finishes).
export async function pooled(items, size, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}

// One table served in parts: `partsOf(wanted)` names the parts still
// missing, `readPart(part)` adds one, `readWhole()` adds the whole file. A
// part that cannot be read or is refused (damaged, of another table: a stale
// cache; offline, where the service worker keeps the file, not every part)
// gives way to the whole file, checked the same way; its failure is the
// call's error.
function partSource({ total, partsOf, readPart, readWhole }) {
  let pending = Promise.resolve();
  const stats = { parts: 0, bytes: 0, whole: false };
  async function whole() {
    stats.bytes += await readWhole();
    stats.whole = true;
  }
  async function fetchParts(wanted) {
    const parts = partsOf(wanted);
    if (!parts.length || stats.whole) return;
    if (parts.length > Math.min(total * WHOLE_TABLE_SHARE, MAX_PARTS_AT_ONCE)) return whole();
    try {
      await pooled(parts, FETCHES_AT_ONCE, async (part) => {
        stats.bytes += await readPart(part);
        stats.parts += 1;
      });
    } catch {
      await whole();
    }
  }
  return {
    stats,
    // One fetch at a time across callers: two queries never fetch a part twice.
    ensure(wanted) {
      pending = pending.then(() => fetchParts(wanted), () => fetchParts(wanted));
      return pending;
    },
  };
}

// model: core.sparseStaticModel(); blocks: the manifest's static.blocks.
export function rowSource({ model, readFile, blocks, tableFile }) {
  return partSource({
    total: Math.ceil(model.vocab / blocks.rows),
    partsOf: (ids) => [...new Set(Array.from(model.missing(Int32Array.from(ids)), (id) => Math.floor(id / blocks.rows)))],
    async readPart(index) {
      const bytes = await readFile(blockName(blocks.dir, index));
      model.addRows(bytes);
      return bytes.byteLength;
    },
    async readWhole() {
      const bytes = await readFile(tableFile);
      model.addTable(bytes);
      return bytes.byteLength;
    },
  });
}

// lexicon: core.shardedLexicon(shards); shards: the manifest's lexicon.shards.
export function lexiconSource({ lexicon, readFile, shards, tableFile }) {
  const held = new Set();
  return partSource({
    total: shards.count * shards.languages.length,
    partsOf: (names) => [...new Set(names)].filter((n) => !held.has(n)),
    async readPart(name) {
      const bytes = await readFile(shardName(shards.dir, name));
      lexicon.addShard(name, bytes);
      held.add(name);
      return bytes.byteLength;
    },
    async readWhole() {
      const bytes = await readFile(tableFile);
      lexicon.addTable(bytes);
      return bytes.byteLength;
    },
  });
}

// Runs fn (sync or async, repeatable: the core changes nothing before it
// throws for a missing part), fetching what it reports missing, until it
// needs nothing more. rows, lexicon: sources above, or null.
export async function withParts(fn, { rows = null, lexicon = null }) {
  for (let round = 0; ; round++) {
    try {
      return await fn();
    } catch (err) {
      const missingRows = err?.code === 'missing_rows' ? err.rows ?? err.cause?.rows : null;
      const missingShards = err?.code === 'missing_lexicon' ? err.shards ?? err.cause?.shards : null;
      const source = missingRows ? rows : missingShards ? lexicon : null;
      if (!source) throw err;
      if (round >= MAX_ROUNDS) throw new VesperError('internal', `the model still lacks parts of its tables after ${MAX_ROUNDS} fetches`);
      await source.ensure(missingRows ?? missingShards);
    }
  }
}
