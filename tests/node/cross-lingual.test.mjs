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
