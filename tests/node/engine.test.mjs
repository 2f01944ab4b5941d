// The engine every client drives (web/vesper-engine.mjs): switching models
// never mixes vectors, and a model's files are read only from its folder.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createEngine } from '../../web/vesper-engine.mjs';
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
