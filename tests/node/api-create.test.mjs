// The public API (web/index.mjs, the package's main entry) in Node: the site
// author's script, errors as VesperError with codes, progress and fallback
// reported. The same script runs in the browser (tests/browser/api-create.test.mjs).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { create, VesperError } from 'vesper';
import { run } from '../browser/pages/api-script.mjs';
import { root } from './helpers.mjs';
import { site } from '../browser/helpers.mjs';

async function nodeSummary() {
  return run(create, { pack: join(site(), 'packs/karpathy.pack'), persona: join(root, 'web/kb/karpathy/persona.json') });
}

test('the site author\'s script: create, search, ask, add, save, dispose', async () => {
  const s = await nodeSummary();
  assert.equal(s.model, 'vesper-default-2', 'the pack\'s own model is found without being named');
  assert.equal(s.answerable, true);
  assert.ok(s.results.length > 0 && s.results.length <= 5);
  assert.equal(s.reply.kind, 'answer');
  assert.ok(s.reply.citations.length > 0);
  assert.ok(s.reply.citations.some((id) => s.results.some(([r]) => r === id)) || s.reply.citations.length, 'cites passages');
  assert.ok(s.notes.some((t) => /Albatross/.test(t)));
  assert.ok(s.savedBytes > 0);
});

test('errors are VesperErrors with codes; a missing model is a fallback event, not a failure', async () => {
  await assert.rejects(create({ pack: join(root, 'no-such.pack') }), (e) => e instanceof VesperError && e.code === 'not_found');
  await assert.rejects(create({ pack: new Uint8Array([1, 2, 3]) }), (e) => e instanceof VesperError && e.code === 'corrupt_data');
  const fallbacks = [];
  const v = await create({ model: join(root, 'models/not-there'), onFallback: (f) => fallbacks.push(f.reason) });
  assert.equal(v.model, null);
  assert.match(fallbacks[0], /embedding model could not be loaded .*lexical only/);
  await assert.rejects(v.search('anything'), (e) => e instanceof VesperError && e.code === 'not_found' && /no database yet/.test(e.message));
  const progress = [];
  v.addEventListener('progress', (ev) => progress.push(ev.detail));
  await v.add('words', ['Lexical search finds the word albatross.']);
  assert.ok(progress.length > 0 && progress.at(-1).database === 'words');
  await assert.rejects(v.search('   '), (e) => e instanceof VesperError && e.code === 'empty_input');
  await assert.rejects(v.add('empty', []), (e) => e instanceof VesperError && e.code === 'empty_input');
  assert.throws(() => v.save('nope'), (e) => e instanceof VesperError && e.code === 'not_found');
  await v.dispose();
});

test('the core and the JS layers give an empty question the same code', async () => {
  const v = await create({ pack: join(site(), 'packs/karpathy.pack'), persona: join(root, 'web/kb/karpathy/persona.json') });
  await assert.rejects(v.ask(' \n '), (e) => e instanceof VesperError && e.code === 'empty_input');
  await v.dispose();
  const { loadCore } = await import('../../tools/cli/core.mjs');
  const core = await loadCore();
  const db = core.collection('words', null);
  db.add([{ id: 'a', text: 'albatross', source: 'a.md', title: [], language: 'en' }]);
  const persona = core.persona(readFileSync(join(root, 'web/kb/karpathy/persona.json'), 'utf8'));
  // Below the engine's own check: the core's code is the same.
  assert.throws(() => persona.answer(db, '   '), { code: 'empty_input', message: /the question is empty/ });
  persona.dispose();
  db.dispose();
});

test('useModel switches the model and re-embeds every database, all or nothing', async () => {
  const v = await create({ model: join(root, 'models/test/static-tiny') });
  await v.add('birds', ['Albatrosses glide for hours over the Southern Ocean.', 'Penguins cannot fly but swim fast.']);
  assert.equal(v.model.id, 'static-tiny');
  const stages = new Set();
  const info = await v.useModel(join(root, 'models/test/tiny-gemma'), { onProgress: (p) => stages.add(p.stage) });
  assert.equal(info.id, 'tiny-gemma');
  assert.ok(stages.has('embed'));
  const r = await v.search('albatross', { threshold: 0, diagnostics: true });
  assert.equal(r.query.vector.length, 64, 'the database was re-embedded with the new model');
  assert.equal(r.results[0].source, 'birds-1.txt');
  // A model that is not there: an error, and the current model stays.
  await assert.rejects(v.useModel(join(root, 'models/not-there')), (err) => err instanceof VesperError && err.code === 'not_found');
  assert.equal(v.model.id, 'tiny-gemma');
  // Downloading is for browsers (Cache Storage); Node has `vesper fetch-model`.
  await assert.rejects(v.useModel(join(root, 'models/test/tiny-gemma'), { download: true }), { code: 'unsupported' });
  await v.dispose();
});
