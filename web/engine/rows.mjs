// A static model's rows on demand. The default table is 8 MB, most of a
// cold page's download, and a query needs a few dozen of its 32k rows: a
// site serves the table also cut into blocks (manifest `static.blocks`:
// { dir, rows }, written by blockFiles() below), a pack carries the rows its
// passages use (the core's rows section), and a query fetches the blocks
// holding its other pieces. The core never guesses a missing row: it throws
// 'missing_rows' naming them, and withRows() fetches those and repeats the
// call. Where most of the table is wanted (a large knowledge base built on
// the page), the whole file comes in one request instead.
import { VesperError } from './errors.mjs';

// A block is read whole: 64 rows of 260 bytes (int8 and a scale) is ~16 kB,
// so a query with a few unfamiliar pieces downloads tens of kB.
export const ROWS_PER_BLOCK = 64;
// Past this share of the table's blocks in one go, one request for the file.
const WHOLE_TABLE_SHARE = 1 / 8;
// A call asks again after each fetch; a correct core needs two rounds (the
// query's pieces, then its translation's): more is a bug, not a slow network.
const MAX_ROUNDS = 6;
const FETCHES_AT_ONCE = 8;

export const blockName = (dir, index) => `${dir}${index}.vrow`;

// The model's blocks as files: [{ path, bytes }] (the site build writes them
// beside the table). model: a fully loaded core.staticModel().
export function blockFiles(model, { dir = 'rows/', rows = ROWS_PER_BLOCK } = {}) {
  const files = [];
  for (let first = 0; first < model.vocab; first += rows) {
    const ids = Int32Array.from({ length: Math.min(rows, model.vocab - first) }, (_, i) => first + i);
    files.push({ path: blockName(dir, first / rows), bytes: model.rowSet(ids) });
  }
  return files;
}

async function inBatches(items, size, fn) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

// model: core.sparseStaticModel(); readFile(path) reads from the model's
// folder; blocks: the manifest's static.blocks; tableFile: static.file.
export function rowSource({ model, readFile, blocks, tableFile }) {
  const totalBlocks = Math.ceil(model.vocab / blocks.rows);
  let pending = Promise.resolve();
  const stats = { blocks: 0, bytes: 0, whole: false };

  async function wholeTable() {
    const bytes = await readFile(tableFile);
    model.addTable(bytes);
    Object.assign(stats, { whole: true, bytes: stats.bytes + bytes.byteLength });
  }

  async function fetchRows(ids) {
    const wanted = [...new Set(Array.from(model.missing(Int32Array.from(ids)), (id) => Math.floor(id / blocks.rows)))];
    if (!wanted.length) return;
    if (wanted.length > totalBlocks * WHOLE_TABLE_SHARE) return wholeTable();
    try {
      await inBatches(wanted, FETCHES_AT_ONCE, async (index) => {
        const bytes = await readFile(blockName(blocks.dir, index));
        model.addRows(bytes);
        stats.blocks += 1;
        stats.bytes += bytes.byteLength;
      });
    } catch {
      // A block that could not be read (offline, where the service worker
      // keeps the table, not every block) or that was refused (damaged, or of
      // another table: a stale cache): the rows come from the whole table,
      // checked the same way. Its own failure is the query's error.
      await wholeTable();
    }
  }

  return {
    stats,
    // Fetches the blocks holding any of `ids` not held yet (one fetch at a
    // time across callers, so two queries never fetch the same block twice).
    ensure(ids) {
      pending = pending.then(() => fetchRows(ids), () => fetchRows(ids));
      return pending;
    },
    // Runs fn (sync or async, repeatable: it must change nothing before it
    // throws), fetching what it reports missing, until it needs nothing more.
    async withRows(fn) {
      for (let round = 0; ; round++) {
        try {
          return await fn();
        } catch (err) {
          const missing = err?.rows ?? err?.cause?.rows;
          if (err?.code !== 'missing_rows' || !missing) throw err;
          if (round >= MAX_ROUNDS) throw new VesperError('internal', `the model still lacks rows after ${MAX_ROUNDS} fetches`);
          await this.ensure(missing);
        }
      }
    },
  };
}
