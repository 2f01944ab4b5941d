// The engine every client drives (web/vesper-engine.mjs): switching models
// never mixes vectors, and a model's files are read only from its folder.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createEngine } from '../../web/vesper-engine.mjs';
import { INT8_FROM_PASSAGES, vectorOptionsFor } from '../../web/engine/kb.mjs';
import { root } from './helpers.mjs';

const DOCS = [{ source: 'birds.md', text: '# Birds\n\nAlbatrosses glide for hours without flapping their wings.' }];

test('a database stored with one model answers lexically once another model is in use', async () => {
  const engine = await createEngine({ model: join(root, 'models/test/static-tiny') });
  assert.equal(engine.model.id, 'static-tiny');
  await engine.store('birds', DOCS);
  const before = await engine.search('birds', 'albatross gliding', { padTo: 0 });
  assert.ok(before.query.vector, 'its own model embeds the query');
  await engine.useModel(join(root, 'models/test/tiny-gemma'));
  assert.equal(engine.model.id, 'tiny-gemma');
  const after = await engine.search('birds', 'albatrosses glide', { padTo: 0 });
  assert.equal(after.query.vector, null, 'no query vector of another model is compared with its vectors');
  assert.ok(after.results.concat(after.nearMisses).some((r) => /Albatrosses/.test(r.text)), 'still found, by its words');
  // What is stored now is embedded by the new model, whose manifest has a
  // threshold but no calibration: the page says its bar is uncalibrated.
  const db = await engine.store('birds-2', DOCS);
  assert.equal(db.model.id, 'tiny-gemma');
  assert.equal(engine.calibrated('birds-2'), false);
  assert.ok((await engine.search('birds-2', 'albatross', { padTo: 0 })).query.vector);
  await engine.dispose();
});

test('a database of the default model has a calibrated bar', async () => {
  const engine = await createEngine({ model: join(root, 'models/default') });
  await engine.store('birds', DOCS);
  assert.equal(engine.calibrated('birds'), true);
  await engine.dispose();
});

test('a model naming a file outside its folder is refused before anything is read; search stays lexical', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'vesper-engine-')), 'evil');
  mkdirSync(dir);
  const manifest = JSON.parse(readFileSync(join(root, 'models/test/static-tiny/manifest.json'), 'utf8'));
  copyFileSync(join(root, 'models/test/tokenizer.model'), join(dir, 'tokenizer.model'));
  manifest.tokenizer.file = 'tokenizer.model';
  manifest.static.file = '../../../../../../etc/passwd';
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  const notices = [];
  const engine = await createEngine({ model: dir, onNotice: (n) => notices.push(n) });
  assert.equal(engine.model, null);
  assert.match(notices[0], /names a file outside its folder: \.\.\/\.\.\/.*lexical only/);
  await assert.rejects(engine.useModel(dir), { code: 'invalid_argument' });
  await engine.dispose();
});

test('switchModel re-embeds a database with the new model, all or nothing', async () => {
  const engine = await createEngine({ model: join(root, 'models/test/static-tiny') });
  const many = Array.from({ length: 40 }, (_, i) => ({ source: `n${i}.md`, text: `# Note ${i}\n\nAlbatross number ${i} glides over the southern ocean for hours.` }));
  await engine.store('birds', many);
  const size = engine.require('birds').size;
  // Cancelled half-way through the re-embedding: the old model and the old
  // database stay, as if nothing happened.
  const controller = new AbortController();
  const progress = [];
  await assert.rejects(engine.switchModel(join(root, 'models/test/tiny-gemma'), {
    reembed: { birds: null }, signal: controller.signal,
    onProgress: (p) => {
      progress.push(p.stage);
      if (p.stage === 'embed' && p.done >= 16) controller.abort();
    },
  }), { code: 'cancelled' });
  assert.ok(progress.includes('embed'));
  assert.equal(engine.model.id, 'static-tiny');
  assert.equal(engine.require('birds').model.id, 'static-tiny');
  assert.equal(engine.require('birds').size, size);
  assert.ok((await engine.search('birds', 'albatross', { padTo: 0 })).query.vector, 'still searched with its vectors');
  // Done to the end: the same passages, the new model's vectors.
  const before = engine.require('birds').chunks().map((c) => c.id);
  await engine.switchModel(join(root, 'models/test/tiny-gemma'), { reembed: { birds: null } });
  assert.equal(engine.model.id, 'tiny-gemma');
  const db = engine.require('birds');
  assert.equal(db.model.id, 'tiny-gemma');
  assert.deepEqual(db.chunks().map((c) => c.id), before);
  const r = await engine.search('birds', 'albatross', { padTo: 0 });
  assert.equal(r.query.vector.length, 64, 'the query is embedded by the new model and compared');
  // A knowledge base given as documents is chunked again with the new model.
  await engine.switchModel(join(root, 'models/test/static-tiny'), { reembed: { birds: DOCS } });
  assert.equal(engine.require('birds').model.id, 'static-tiny');
  assert.equal(engine.require('birds').size, 1);
  await engine.dispose();
});

test('a pack of another model loads with anyModel, searched by its words', async () => {
  const engine = await createEngine({ model: join(root, 'models/test/static-tiny') });
  await engine.store('birds', DOCS);
  const pack = engine.exportPack('birds');
  await engine.useModel(join(root, 'models/test/tiny-gemma'));
  assert.throws(() => engine.loadPack(pack), { code: 'model_mismatch' });
  assert.deepEqual(engine.loadPack(pack, { anyModel: true }), ['birds']);
  assert.equal(engine.require('birds').model.id, 'static-tiny');
  const r = await engine.search('birds', 'albatrosses glide', { padTo: 0 });
  assert.equal(r.query.vector, null);
  await engine.dispose();
});

test('a large database stores int8 vectors unless asked otherwise; a small one float32', async () => {
  const engine = await createEngine({ model: join(root, 'models/test/static-tiny') });
  const many = Array.from({ length: 16 }, (_, i) => ({ source: `n${i}.md`, text: `# Note ${i}\n\nBird ${i} glides for ${i} hours.` }));
  const small = await engine.store('small', many);
  assert.equal(small.vectorFormat, 'float32');
  assert.equal((await engine.store('asked', many, { vectors: 'int8' })).vectorFormat, 'int8');
  assert.deepEqual(vectorOptionsFor('auto'), { vectors: 'float32', int8From: INT8_FROM_PASSAGES });
  assert.deepEqual(vectorOptionsFor('binary'), { vectors: 'binary' });
  // Built a batch at a time, it turns int8 on the way, exactly as if stored int8 from the start.
  const pages = Array.from({ length: INT8_FROM_PASSAGES }, (_, i) => ({ source: `p${i}.md`, text: `Page ${i}: albatross number ${i}.` }));
  const progress = [];
  const large = await engine.store('large', pages, { onProgress: (p) => progress.push(p) });
  assert.equal(large.vectorFormat, 'int8');
  assert.equal(large.size, INT8_FROM_PASSAGES);
  assert.ok(progress.length > 2 && progress.at(-1).done === progress.at(-1).total, 'progress reaches the end');
  assert.ok(progress.every((p, i) => i === 0 || p.done >= progress[i - 1].done), 'progress never goes back');
  const direct = await engine.store('direct', pages, { vectors: 'int8' });
  for (const c of large.chunks().slice(0, 50)) assert.deepEqual(large.vector(c.id), direct.vector(c.id));
  const below = await engine.store('below', pages.slice(1), {});
  assert.equal(below.vectorFormat, 'float32');
  // A pack of the large kind loads and searches as it was stored.
  const reloaded = await createEngine({ model: join(root, 'models/test/static-tiny') });
  reloaded.loadPack(engine.exportPack('large'));
  const found = await reloaded.search('large', 'albatross number 17', { padTo: 0 });
  assert.ok(found.results.length > 0);
});
