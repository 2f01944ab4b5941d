// A knowledge base a static site serves in parts (core/collection/split.h),
// for sites too large to load whole: `vesper split` writes an entry
// (index.vsx: the corpus's counts and where each part lies), term, page and
// match fragments. A page downloads the entry, then per query the parts the
// core names as missing: the term fragments of its words and their
// translations and the neighbour lists of its model pieces (piece matching
// without the rows of every fetched passage's pieces), then the pages those
// words weigh most in. The collection it
// searches holds only the pages fetched so far and ranks them with the whole
// corpus's statistics; the engine calls db.prepare(text) before each query.
import { VesperError } from './errors.mjs';
import { pooled } from './on-demand.mjs';

export const SPLIT_ENTRY = 'index.vsx';
const PART_PATHS = { t: (i) => `terms/${i}.vst`, p: (i) => `pages/${i}.vpk`, m: (i) => `matches/${i}.vsm` };
export const partPath = (name) => PART_PATHS[name[0]](name.slice(1));
const FETCHES_AT_ONCE = 16;  // as on-demand.mjs: a browser queues past its own limit per host
// Term and match fragments, then pages: two rounds. More is a bug.
const MAX_ROUNDS = 4;

// A collection's split files: [{ path, bytes }], the entry first.
// options: { termFragmentBytes, pageFragmentBytes, pagesPerTerm, matchNeighbors,
// matchFragmentPieces } (core/collection/split.h).
export function splitFiles(core, db, options = {}) {
  const parts = core.splitCollection(db, options);
  return [
    { path: SPLIT_ENTRY, bytes: parts.entry },
    ...parts.terms.map((bytes, i) => ({ path: partPath(`t${i}`), bytes })),
    ...parts.pages.map((bytes, i) => ({ path: partPath(`p${i}`), bytes })),
    ...parts.matches.map((bytes, i) => ({ path: partPath(`m${i}`), bytes })),
  ];
}

// What a split index's entry describes: its collection's name and model
// (null: lexical), e.g. to load that model before opening it.
export function describeSplit(core, entry) {
  const index = core.splitIndex(entry);
  const probe = index.makeCollection();
  try {
    return { name: probe.name, model: probe.model };
  } finally {
    probe.dispose();
    index.dispose();
  }
}

// readFile(path) -> Uint8Array, relative to the split's folder. Resolves to
// a core collection holding no page yet, with prepare(text) (fetches what
// the query needs; repeatable after a missing model part, as withParts
// expects) and split.stats ({ parts, bytes, names } fetched so far; names:
// the parts in the order they came, e.g. to weigh them compressed).
export async function openSplit(core, readFile, { pages = null } = {}) {
  const entry = await readFile(SPLIT_ENTRY);
  const index = core.splitIndex(entry);
  const db = index.makeCollection();
  const stats = { bytes: entry.byteLength, names: [], get parts() { return this.names.length; } };
  const fetched = new Map();  // part -> bytes not added yet (adding may wait for model rows)
  const add = (name) => {
    const bytes = fetched.get(name);
    if (name[0] === 't') index.addTerms(Number(name.slice(1)), bytes);
    else if (name[0] === 'm') index.addMatches(Number(name.slice(1)), bytes);
    else index.addPages(Number(name.slice(1)), bytes, db);
    fetched.delete(name);
  };
  async function fetchMissing(text) {
    for (let round = 0; ; round++) {
      const missing = index.missing(text, db, pages ? { pages } : {});
      if (!missing.length) return;
      if (round >= MAX_ROUNDS) throw new VesperError('internal', `the split index still misses parts after ${MAX_ROUNDS} rounds`);
      await pooled(missing.filter((name) => !fetched.has(name)), FETCHES_AT_ONCE, async (name) => {
        const bytes = await readFile(partPath(name));
        fetched.set(name, bytes);
        stats.bytes += bytes.byteLength;
        stats.names.push(name);
      });
      addAll(missing);
    }
  }
  // Every fetched part that can be added now is; the model rows the others'
  // passages need (a model loaded row by row) are asked for in one error, so
  // that withParts fetches them in one round, not one round per page.
  function addAll(names) {
    const rows = new Set();
    for (const name of names) {
      try {
        add(name);
      } catch (err) {
        const ids = err?.code === 'missing_rows' ? err.rows ?? err.cause?.rows : null;
        if (!ids) throw err;
        for (const id of ids) rows.add(id);
      }
    }
    if (rows.size) {
      const err = new VesperError('missing_rows', `the model's rows for ${rows.size} pieces of the fetched pages are not loaded yet`);
      err.rows = Int32Array.from(rows);
      throw err;
    }
  }
  // One query's fetching at a time: two queries never fetch a part twice.
  let pending = Promise.resolve();
  db.prepare = (text) => {
    pending = pending.then(() => fetchMissing(text), () => fetchMissing(text));
    return pending;
  };
  db.split = { stats, termFragments: index.termFragments, pageFragments: index.pageFragments, passages: index.passages };
  const dispose = db.dispose.bind(db);
  db.dispose = () => {
    dispose();
    index.dispose();
  };
  return db;
}
