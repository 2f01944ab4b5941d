// A static model's tables on demand (web/engine/on-demand.mjs; core
// StaticModel row sets and Lexicon shards): a page loads a pack that carries
// the rows its passages use and fetches a query's other rows in blocks and
// its words' lexicon shards, and ranks, answers and stores exactly as with
// the whole files; a part that is damaged or missing gives way to the whole
// file, and a damaged whole file fails the query, saying why.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createEngine } from '../../web/vesper-engine.mjs';
import { writeOnDemand } from '../../tools/cli/model-parts.mjs';
import { LEXICON_SHARDS, ROWS_PER_BLOCK } from '../../web/engine/on-demand.mjs';
import { kbDir, root } from './helpers.mjs';

const DOCS = readdirSync(kbDir).filter((f) => f.endsWith('.txt')).sort().slice(0, 2)
  .map((f) => ({ source: f, text: readFileSync(join(kbDir, f), 'utf8') }));
const QUERIES = ['Why did Tesla bet on cameras instead of LiDAR?', 'O que é Software 2.0?', '什么是HydraNet？', '特斯拉为什么不用激光雷达？', 'zymurgy quokka Reykjavík'];

// The default model as a site serves it: table, and the same in blocks.
async function servedModel() {
  const dir = join(mkdtempSync(join(tmpdir(), 'vesper-rows-')), 'default');
  cpSync(join(root, 'models/default'), dir, { recursive: true, filter: (p) => !p.includes('/eval') });
  const written = await writeOnDemand(dir);
  return { dir, written };
}

const ranking = (r) => r.ranked.map((x) => [x.id, x.score, x.shown]);

async function sameAsWholeTable(sparse, full, name) {
  for (const q of QUERIES) {
    assert.deepEqual(ranking(await sparse.search(name, q)), ranking(await full.search(name, q)), q);
    assert.equal((await sparse.ask(name, q)).answer, (await full.ask(name, q)).answer, q);
  }
}

test('a pack carries its rows and a query fetches a few blocks: rankings and answers as with the whole table', async () => {
  const { dir, written } = await servedModel();
  assert.equal(written.rows.files, 32000 / ROWS_PER_BLOCK);
  assert.equal(written.lexicon.files, 3 * LEXICON_SHARDS);
  const full = await createEngine({ model: join(root, 'models/default') });
  await full.store('kb', DOCS);
  const pack = full.exportPack('kb');
  const sparse = await createEngine({ model: dir });
  assert.equal(sparse.embedder.pieceModel.held, 0, 'no row is read before a pack or a query needs it');
  sparse.loadPack(pack);
  const carried = sparse.embedder.pieceModel.held;
  assert.ok(carried > 1000 && carried < 32000 / 4, `the pack carries its passages' rows (${carried})`);
  const persona = readFileSync(join(kbDir, 'persona.json'), 'utf8');
  full.loadPersona(persona);
  sparse.loadPersona(persona);
  await sameAsWholeTable(sparse, full, 'kb');
  const { parts: blocks, bytes, whole } = sparse.embedder.rowStats;
  assert.equal(whole, false);
  assert.ok(blocks > 0 && blocks < 32000 / ROWS_PER_BLOCK / 10, `only the blocks the queries needed (${blocks}, ${bytes} bytes)`);
  const lexicon = sparse.embedder.lexiconStats;
  assert.equal(lexicon.whole, false);
  assert.ok(lexicon.parts > 0 && lexicon.parts < 3 * LEXICON_SHARDS / 8, `only the lexicon shards the queries needed (${lexicon.parts}, ${lexicon.bytes} bytes)`);
  // Stored on the page itself: the documents' rows are fetched as they are embedded.
  const fresh = await createEngine({ model: dir });
  await fresh.store('kb', DOCS);
  fresh.loadPersona(persona);
  await sameAsWholeTable(fresh, full, 'kb');
  for (const e of [full, sparse, fresh]) await e.dispose();
  rmSync(dir, { recursive: true, force: true });
});

test('a damaged block, or one that cannot be read (offline), is read from the whole table; a damaged table is refused', async () => {
  const { dir } = await servedModel();
  const blocks = readdirSync(join(dir, 'rows'));
  const full = await createEngine({ model: join(root, 'models/default') });
  await full.store('kb', DOCS);
  const pack = full.exportPack('kb');

  for (const f of blocks) {
    const b = readFileSync(join(dir, 'rows', f));
    b[b.length - 10] ^= 0x40;
    writeFileSync(join(dir, 'rows', f), b);
  }
  // Every lexicon shard holds a line of another.
  const shards = readdirSync(join(dir, 'lexicon'));
  const stray = readFileSync(join(dir, 'lexicon', shards[0]), 'utf8').split('\n')[0];
  for (const f of shards.slice(1)) writeFileSync(join(dir, 'lexicon', f), `${stray}\n${readFileSync(join(dir, 'lexicon', f), 'utf8')}`);
  const q = 'zymurgy quokka Reykjavík';
  const damaged = await createEngine({ model: dir });
  damaged.loadPack(pack);
  assert.deepEqual(ranking(await damaged.search('kb', q)), ranking(await full.search('kb', q)));
  assert.equal(damaged.embedder.rowStats.whole, true);
  assert.equal(damaged.embedder.lexiconStats.whole, true);
  await damaged.dispose();

  rmSync(join(dir, 'rows'), { recursive: true });
  const offline = await createEngine({ model: dir });
  offline.loadPack(pack);
  assert.deepEqual(ranking(await offline.search('kb', q)), ranking(await full.search('kb', q)));
  assert.equal(offline.embedder.rowStats.whole, true);

  // Blocks and table both unusable: the query fails, saying why; no row is guessed.
  const table = join(dir, 'model.vtab');
  writeFileSync(table, readFileSync(table).subarray(0, 100_000));
  const broken = await createEngine({ model: dir });
  broken.loadPack(pack);
  await assert.rejects(broken.search('kb', q), { code: 'corrupt_data', message: /truncated/ });
  assert.equal((await broken.search('kb', 'Tesla LiDAR')).ranked.length > 0, true, 'a query the pack\'s rows cover (its translation too: names stay names) still works');
  for (const e of [full, offline, broken]) await e.dispose();
  rmSync(dir, { recursive: true, force: true });
});

test('a pack without the rows its passages use: they are fetched in the background and searches wait for them', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'vesper-rows-')), 'static-tiny');
  cpSync(join(root, 'models/test/static-tiny'), dir, { recursive: true });
  cpSync(join(root, 'models/test/tokenizer.model'), join(dir, 'tokenizer.model'));
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, tokenizer: { ...manifest.tokenizer, file: 'tokenizer.model' } }));
  await writeOnDemand(dir, { rows: 16 });
  const full = await createEngine({ model: join(root, 'models/test/static-tiny') });
  await full.store('kb', DOCS);
  const pack = full.exportPack('kb');
  const sections = full.core.inspectPack(pack).sections.map((s) => s.kind);
  assert.ok(!sections.includes('rows'), 'over half the table: the pack does not carry it');
  const sparse = await createEngine({ model: dir });
  sparse.loadPack(pack);
  assert.equal(typeof sparse.require('kb').whenReady, 'function');
  for (const q of QUERIES) assert.deepEqual(ranking(await sparse.search('kb', q)), ranking(await full.search('kb', q)), q);
  for (const e of [full, sparse]) await e.dispose();
  rmSync(dir, { recursive: true, force: true });
});
