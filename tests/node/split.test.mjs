// A knowledge base cut into parts a static site serves (`vesper split`,
// web/engine/split.mjs, core/collection/split.h): searched from its folder,
// it ranks as the whole pack does while fetching only what a query needs,
// and a damaged part is refused in words.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createEngine } from '../../web/vesper-engine.mjs';
import { create } from '../../web/index.mjs';
import { root, seedFiles } from './helpers.mjs';

const vesper = (args) => promisify(execFile)(join(root, 'tools/vesper'), args, { maxBuffer: 16 << 20 });
const work = mkdtempSync(join(tmpdir(), 'vesper-split-'));
const pack = join(work, 'kb.pack');
const dir = join(work, 'kb-split');
const QUERIES = ['Why did Tesla bet on cameras instead of LiDAR?', 'o que é Software 2.0?', '分词为什么重要', 'nanoGPT'];
const ids = (out) => JSON.parse(out.stdout).results.map((r) => r.id);

let built = null;
const buildOnce = () => (built ??= (async () => {
  await vesper(['build', ...seedFiles, '--db', 'kb', '--out', pack]);
  return vesper(['split', pack, '--out', dir]);
})());

test('vesper split: searching the folder shows what searching the pack shows', { timeout: 120_000 }, async () => {
  const split = await buildOnce();
  assert.match(split.stdout, /'kb' as an entry of [\d.]+ kB, \d+ term fragments \([\d.]+ kB\), \d+ page fragments \([\d.]+ kB\) and \d+ match fragments/);
  // inspect reads and checks every part.
  const info = JSON.parse((await vesper(['inspect', dir, '--json'])).stdout);
  const packInfo = JSON.parse((await vesper(['inspect', pack, '--json'])).stdout);
  assert.equal(info.collection.passages, packInfo.collections[0].chunks);
  assert.equal(info.collection.held, info.collection.passages);
  assert.ok(info.terms.count > 1 && info.pages.count > 1 && info.matches.count > 1, JSON.stringify(info));
  for (const q of QUERIES) {
    const whole = await vesper(['search', pack, q, '--json', '-k', '5']);
    const parts = await vesper(['search', dir, q, '--json', '-k', '5']);
    // Piece matching reads neighbour lists (cosines as bytes, an assumed
    // cosine past the nearest 16), not the rows: the same passages, in
    // nearly the same order.
    assert.equal(ids(parts)[0], ids(whole)[0], q);
    const shared = ids(parts).filter((id) => ids(whole).includes(id));
    assert.equal(ids(parts).length, ids(whole).length, q);
    assert.ok(shared.length >= Math.min(4, ids(whole).length), `${q}: ${ids(parts)} vs ${ids(whole)}`);
  }
});

test('split --neighbors 0 writes no match fragments, and the folder ranks exactly as the pack', { timeout: 120_000 }, async () => {
  await buildOnce();
  const exact = join(work, 'exact');
  const out = await vesper(['split', pack, '--out', exact, '--neighbors', '0']);
  assert.match(out.stdout, / and 0 match fragments/);
  for (const q of QUERIES) {
    const whole = await vesper(['search', pack, q, '--json', '-k', '5']);
    const parts = await vesper(['search', exact, q, '--json', '-k', '5']);
    assert.deepEqual(ids(parts), ids(whole), q);
  }
  await assert.rejects(vesper(['split', pack, '--out', join(work, 'bad'), '--neighbors', '300']), /--neighbors must be a whole number from 0 to 255/);
});

test('a query fetches only the pages its words point to, and ranks them with the whole corpus', { timeout: 120_000 }, async () => {
  await buildOnce();
  const whole = await createEngine({ model: join(root, 'models/default') });
  whole.loadPack(readFileSync(pack));
  const parts = await createEngine({ model: join(root, 'models/default') });
  const name = await parts.openSplit(pathToFileURL(`${dir}/`), { pages: 1 });
  const q = 'Why did Tesla bet on cameras instead of LiDAR?';
  const a = await whole.search(name, q, { mode: 'lexical' });
  const b = await parts.search(name, q, { mode: 'lexical' });
  const db = parts.require(name);
  assert.ok(db.size < whole.require(name).size, `${db.size} passages fetched of ${whole.require(name).size}`);
  // Scored with the whole corpus's counts, not the fetched part's.
  const same = a.ranked.find((r) => r.id === b.ranked[0].id);
  assert.ok(same, 'the part\'s first passage is among the whole\'s');
  assert.ok(Math.abs(b.ranked[0].score - same.score) < 1e-5, `${b.ranked[0].score} vs ${same.score}`);
  assert.ok(db.split.stats.parts >= 2 && db.split.stats.bytes > 0);
  await whole.dispose();
  await parts.dispose();
});

test('a damaged part is refused in words; split will not overwrite a folder of other files', { timeout: 120_000 }, async () => {
  await buildOnce();
  const damaged = join(work, 'damaged');
  await vesper(['split', pack, '--out', damaged]);
  for (const file of readdirSync(join(damaged, 'terms'))) {
    const bytes = readFileSync(join(damaged, 'terms', file));
    bytes[bytes.length - 10] ^= 0xff;
    writeFileSync(join(damaged, 'terms', file), bytes);
  }
  await assert.rejects(vesper(['search', damaged, 'apple', '--mode', 'lexical']), (err) => {
    assert.match(err.stderr, /term fragment \d+ rejected: checksum mismatch/);
    return true;
  });
  await assert.rejects(vesper(['inspect', damaged]), /term fragment \d+ rejected: checksum mismatch/);
  const other = join(work, 'other');
  mkdirSync(other);
  writeFileSync(join(other, 'notes.txt'), 'mine');
  await assert.rejects(vesper(['split', pack, '--out', other]), /is a folder that is not a split index/);
  assert.equal(readFileSync(join(other, 'notes.txt'), 'utf8'), 'mine');
});

test('create({ split }): the package API opens the folder with the model it was built with', { timeout: 120_000 }, async () => {
  await buildOnce();
  const v = await create({ split: dir });
  assert.equal(v.model?.id, 'vesper-default-2');
  const found = await v.search('Why did Tesla bet on cameras instead of LiDAR?');
  const whole = await vesper(['search', pack, 'Why did Tesla bet on cameras instead of LiDAR?', '--json', '-k', '5']);
  assert.equal(found.results[0]?.id, ids(whole)[0]);
  await v.dispose();
});
