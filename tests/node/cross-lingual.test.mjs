// The default model's lexicon (models/default/lexicon.tsv): a question finds
// the passage written in another language through its translation, in the
// engine every client uses.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { createEngine } from '../../web/vesper-engine.mjs';
import { root } from './helpers.mjs';

const DOCS = [
  { source: 'optim.md', text: '# Optimisation\n\nGradient descent needs a smaller learning rate when the loss stops improving.' },
  { source: 'cozinha.md', text: '# Cozinha\n\nA receita de bolo de cenoura leva ovos, farinha e açúcar.' },
  { source: '汽车.md', text: '# 汽车\n\n这辆汽车的发动机很安静。' },
];

test('questions in Portuguese and Chinese find the English passage through the lexicon', async () => {
  const engine = await createEngine({ model: join(root, 'models/default') });
  assert.ok(engine.embedder.lexicon, 'the default model ships a lexicon');
  await engine.store('kb', DOCS);
  for (const question of ['Qual taxa de aprendizado usar no gradiente?', '梯度下降的学习率应该多大？']) {
    const found = await engine.search('kb', question, { padTo: 0 });
    const top = found.results[0] ?? found.nearMisses[0];
    assert.equal(top.source, 'optim.md', question);
    assert.ok(top.signals.includes('translated'), `${question}: ${top.signals}`);
  }
  // And the other way: an English question about the Chinese passage.
  const car = await engine.search('kb', 'Is the car engine quiet?', { padTo: 0 });
  assert.equal((car.results[0] ?? car.nearMisses[0]).source, '汽车.md');
  await engine.dispose();
});

test('a Chinese question naming a company or a city finds it by name in the other languages', async () => {
  // 特斯拉 (Tesla) was read character by character (特 "special", 斯拉 "Slovakia")
  // until the lexicon kept CC-CEDICT's well-known names (companies, universities, capitals).
  const engine = await createEngine({ model: join(root, 'models/default') });
  const lexicon = engine.embedder.lexicon;
  assert.equal(lexicon.translateFirst('特斯拉', 'zh', 'en', ' '), 'tesla');
  assert.equal(lexicon.translateFirst('多伦多', 'zh', 'pt', ' '), 'toronto');
  assert.equal(lexicon.translateFirst('stanford', 'en', 'zh', ''), '斯坦福');
  await engine.store('kb', [
    { source: 'tesla.md', text: '# Sensors\n\nTesla builds electric cars.' },
    { source: 'travel.md', text: '# Travel\n\nA special night train pulls into Slovakia.' },
    { source: 'toronto.md', text: '# Childhood\n\nMy family moved from Bratislava to Toronto when I was fifteen.' },
  ]);
  for (const [question, source] of [['特斯拉的汽车', 'tesla.md'], ['他小时候从布拉迪斯拉发搬到了哪里？', 'toronto.md']]) {
    const found = await engine.search('kb', question, { padTo: 0 });
    const top = found.results[0] ?? found.nearMisses[0];
    assert.equal(top.source, source, question);
    assert.ok(top.signals.includes('translated'), `${question}: ${top.signals}`);
  }
  await engine.dispose();
});

test('warming reads every translation direction before a first query needs it, and searches the same after', async () => {
  const engine = await createEngine({ model: join(root, 'models/default') });
  await engine.store('kb', DOCS);
  const before = await engine.search('kb', '梯度下降的学习率应该多大？', { padTo: 0 });
  const entries = engine.warm();
  assert.ok(entries > 100000, `the default lexicon's entries, all directions: ${entries}`);
  assert.equal(engine.warm(), entries);  // once loaded, nothing more to read
  const after = await engine.search('kb', '梯度下降的学习率应该多大？', { padTo: 0 });
  assert.deepEqual(after.results.map((r) => [r.id, r.score]), before.results.map((r) => [r.id, r.score]));
  await engine.dispose();
});

// The default model mixes each text's lexicon translation into its vector
// (manifest translationMix): an everyday sentence's nearest sentence in
// another language is its translation, which the summed pieces alone miss.
test('the default model embeds a sentence near its translation through the translation mix', async () => {
  const { nodeEmbedder } = await import('../../tools/cli/models.mjs');
  const { loadCore } = await import('./helpers.mjs');
  const { mixInto, translationsOf } = await import('../../web/engine/translation-mix.mjs');
  const core = await loadCore();
  const embedder = await nodeEmbedder(core, join(root, 'models/default'));
  assert.deepEqual(embedder.manifest.translationMix.languages, ['en', 'pt', 'zh']);
  const en = ['My grandmother makes the best cake in the world.', 'The car broke down on the highway.', 'I forgot my keys at home this morning.'];
  const pt = ['Minha avó faz o melhor bolo do mundo.', 'O carro quebrou na estrada.', 'Esqueci minhas chaves em casa hoje de manhã.'];
  const e = await embedder.embed(en, { languages: en.map(() => 'en') });
  const p = await embedder.embed(pt, { languages: pt.map(() => 'pt') });
  const d = e.dims;
  const cos = (a, i, b, j) => a.vectors.subarray(i * d, (i + 1) * d).reduce((s, x, k) => s + x * b.vectors[j * d + k], 0);
  for (let i = 0; i < pt.length; i++) {
    const scores = en.map((_, j) => cos(p, i, e, j));
    assert.equal(scores.indexOf(Math.max(...scores)), i, `${pt[i]}: ${scores.map((s) => s.toFixed(3))}`);
  }
  // Each text gets one translation per other language of the mix, word by
  // word, first translations only; mixInto adds them at the weight and
  // renormalises.
  const translated = translationsOf(embedder.lexicon, embedder.manifest.translationMix, [pt[0]], () => 'pt');
  assert.deepEqual(translated.map((t) => t.index), [0, 0], 'one translation each into English and Chinese');
  assert.match(translated[0].text, /grandmother/);
  assert.match(translated[1].text, /[\u4e00-\u9fff]/);
  const row = new Float32Array([0.6, 0.8, 0, 0]);
  mixInto(row, 4, new Float32Array([0, 0, 1, 0]), [0], 0.5);
  assert.deepEqual(Array.from(row, (x) => +x.toFixed(4)), [0.5367, 0.7155, 0.4472, 0], 'own + 0.5 x translation, renormalised');
  // The same model without the mix: the pair is further apart.
  const { mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'vesper-nomix-'));
  for (const f of readdirSync(join(root, 'models/default'))) if (f !== 'manifest.json') symlinkSync(join(root, 'models/default', f), join(dir, f));
  const manifest = JSON.parse(readFileSync(join(root, 'models/default/manifest.json'), 'utf8'));
  delete manifest.translationMix;
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, id: 'vesper-default-unmixed' }));
  const plain = await nodeEmbedder(core, dir);
  const pe = await plain.embed([en[0]]), pp = await plain.embed([pt[0]]);
  const plainCos = pe.vectors.reduce((s, x, k) => s + x * pp.vectors[k], 0);
  assert.ok(cos(p, 0, e, 0) > plainCos + 0.1, `mixed ${cos(p, 0, e, 0).toFixed(3)} vs plain ${plainCos.toFixed(3)}`);
  await plain.dispose();
  await embedder.dispose();
});

test('a batch of texts whose translations need lexicon shards asks for all of them in one error', async () => {
  const { translationsOf } = await import('../../web/engine/translation-mix.mjs');
  const mix = { weight: 0.35, languages: ['en', 'pt'] };
  const lexicon = {
    translateFirst(text) {
      if (text === 'known') return 'conhecido';
      throw Object.assign(new Error('lexicon shards missing'), { code: 'missing_lexicon', shards: [`en-${text}`] });
    },
  };
  assert.deepEqual(translationsOf(lexicon, mix, ['known', 'fr-text'], (i) => (i === 1 ? 'fr' : 'en')), [{ index: 0, text: 'conhecido' }]);
  assert.throws(() => translationsOf(lexicon, mix, ['a', 'known', 'b'], () => 'en'),
    (err) => err.code === 'missing_lexicon' && err.shards.join() === 'en-a,en-b');
});
