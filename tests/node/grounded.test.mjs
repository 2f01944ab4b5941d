// The persona speaking through a generator (web/engine/grounded.mjs), with
// scripted model outputs: what it is told (its identity, language, banned
// words, the numbered passages it cited), and the checks a reply passes
// before anyone reads it (an invented citation removed, no citation, a
// banned word, the wrong language: each falls back to the extractive answer).
// No generation where the persona does not answer. Then the tiny test model
// through the same path and `vesper ask --generator`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { promisify } from 'node:util';
import { createEngine } from '../../web/vesper-engine.mjs';
import { checkGenerated, groundedTurns, speak } from '../../web/engine/grounded.mjs';
import { generatorSpec } from '../../tools/cli/models.mjs';
import { kbDir, root, seedFiles } from './helpers.mjs';

const QUESTION = 'Why did Tesla bet on cameras instead of LiDAR?';
let engine;
before(async () => {
  engine = await createEngine({ model: join(root, 'models/default') });
  await engine.store('kb', seedFiles.map((f) => ({ source: f.split('/').pop(), text: readFileSync(f, 'utf8') })));
  engine.loadPersona(readFileSync(join(kbDir, 'persona.json'), 'utf8'));
});

// A generator that says `text` (or what say(turns) returns), and remembers what it was told.
function scripted(say) {
  const g = {
    info: { id: 'scripted', contextLength: 8192 },
    calls: 0,
    turns: null,
    chatPrompt(turns) {
      g.turns = turns;
      return Int32Array.from({ length: JSON.stringify(turns).length / 4 }, () => 7);
    },
    async generate(_ids, { onText }) {
      g.calls++;
      const text = typeof say === 'function' ? say(g.turns) : say;
      onText?.(text);
      return { ids: [], text, stopped: 'stop' };
    },
  };
  return g;
}

test('the model is told who it is, in which language, what it never says, and the passages the persona cited', async () => {
  const g = scripted('Cameras are cheap and force you to solve vision [1].');
  const r = await speak({ engine, generator: g, name: 'kb', question: QUESTION });
  const [system, user] = g.turns;
  assert.equal(system.role, 'system');
  assert.match(system.text, /^You are Andrej Karpathy\. /);
  assert.match(system.text, /in English\./);
  assert.match(system.text, /Cite every passage you use as \[n\]/);
  assert.match(system.text, /Never use these words: .*\bobviously\b/i);
  assert.match(user.text, /^Passages:\n\[1\] .*Cameras-Only Decision/);
  assert.match(user.text, /\n\nQuestion: Why did Tesla bet on cameras instead of LiDAR\?$/);
  assert.equal(r.generated, true);
  assert.equal(r.generator, 'scripted');
  assert.match(r.answer, /^I'm speaking from Andrej Karpathy's perspective.*\n\nCameras are cheap and force you to solve vision \[1\]\.$/s);
  assert.deepEqual(r.citations.map((c) => c.n), [1]);
  assert.ok(r.state, 'the conversation goes on from the extractive reply');
});

test('a Portuguese question is answered in Portuguese, and a reply in English is not kept', async () => {
  const q = 'Por que a Tesla apostou em câmeras em vez de LiDAR?';
  const english = scripted('Because cameras are cheap and they force the network to really solve vision [1].');
  const r = await speak({ engine, generator: english, name: 'kb', question: q });
  assert.match(english.turns[0].text, /in Portuguese\./);
  assert.equal(r.generated, false);
  assert.match(r.fallback, /answered in English, asked in Portuguese/);
  const portuguese = await speak({ engine, generator: scripted('Porque câmeras são baratas e obrigam a rede a resolver a visão de verdade [1].'), name: 'kb', question: q });
  assert.equal(portuguese.generated, true);
});

test('an invented citation is removed; a reply that cites nothing given, or says a banned word, falls back', async () => {
  const invented = await speak({ engine, generator: scripted('Cameras scale [1], and LiDAR is a crutch [9].'), name: 'kb', question: QUESTION });
  assert.equal(invented.generated, true);
  assert.match(invented.answer, /Cameras scale \[1\], and LiDAR is a crutch\.$/);
  const extractive = await engine.ask('kb', QUESTION);
  for (const [say, why] of [['Cameras are cheaper than lasers.', /no citation/], ['Cameras scale [4].', /no citation/], ["Cameras are obviously better [1].", /never uses/], ['', /empty/]]) {
    const r = await speak({ engine, generator: scripted(say), name: 'kb', question: QUESTION });
    assert.equal(r.generated, false, say);
    assert.match(r.fallback, why);
    assert.equal(r.answer, extractive.answer, 'the extractive answer stands');
  }
});

test('no generation where the persona does not answer: out of scope, unknown, commands', async () => {
  for (const q of ["What's a good recipe for lasagna?", 'Stop role-playing, please.']) {
    const g = scripted('anything [1]');
    const r = await speak({ engine, generator: g, name: 'kb', question: q });
    assert.equal(g.calls, 0, q);
    assert.equal(r.generated, false);
    assert.match(r.fallback, /^not generated: the persona's reply is '/);
  }
});

test('out of the role, nothing is spoken in the persona\'s voice', async () => {
  const exited = await engine.ask('kb', 'Stop role-playing, please.');
  const g = scripted('As Andrej, cameras [1].');
  const r = await speak({ engine, generator: g, name: 'kb', question: QUESTION, conversation: exited.state });
  assert.equal(r.inRole, false);
  assert.equal(g.calls, 0);
  assert.equal(r.fallback, 'not generated: out of the role');
});

test('checkGenerated on its own', () => {
  const opts = { passages: 2, language: 'en', usesBannedWord: () => false, detectLanguage: () => 'en' };
  assert.deepEqual(checkGenerated('A [2] and [1] and [3].', opts), { ok: true, text: 'A [2] and [1] and.', cited: [1, 2], reason: null });
  assert.equal(checkGenerated('[0]', opts).reason, 'empty');
  const turns = groundedTurns({ personaFile: { name: 'P', identity: { en: 'A tester.' } }, language: 'zh', question: 'q', passages: [{ title: ['T'], text: 'x'.repeat(2000) }] });
  assert.match(turns[0].text, /^You are P\. A tester\.\nSpeak in the first person, as P, in Chinese\./);
  assert.ok(turns[1].text.length < 1300, 'a long passage is cut');
});

test('the tiny test model through the same path: its reply cites nothing, so the extractive answer stands', async () => {
  const { generator } = await generatorSpec(engine.core, 'tiny-gemma-it');
  let streamed = '';
  const r = await speak({ engine, generator, name: 'kb', question: QUESTION, options: { maxTokens: 12 }, onText: (d) => { streamed += d; } });
  assert.equal(r.generator, 'tiny-gemma-it');
  assert.equal(r.generated, false);
  assert.equal(r.fallback, 'no citation of the given passages');
  assert.equal(r.stopped, 'length');
  assert.ok(streamed.length > 0, 'the generation streamed before it was checked');
  await generator.dispose();
});

test('vesper ask --generator: the JSON says which generator and whether its words were kept', async () => {
  const pack = join(mkdtempSync(join(tmpdir(), 'vesper-grounded-')), 'kb.pack');
  const vesper = (args) => promisify(execFile)(join(root, 'tools/vesper'), args, { maxBuffer: 64 << 20 });
  await vesper(['build', ...seedFiles, '--db', 'karpathy', '--out', pack]);
  const { stdout } = await vesper(['ask', pack, QUESTION, '--generator', 'tiny-gemma-it', '--max-tokens', '8', '--json']);
  const a = JSON.parse(stdout);
  assert.deepEqual(Object.keys(a).slice(-4), ['generator', 'generated', 'fallback', 'stopped']);
  assert.equal(a.generator, 'tiny-gemma-it');
  assert.equal(a.kind, 'answer');
  assert.equal(a.generated, false);
  await assert.rejects(vesper(['ask', pack, QUESTION, '--generator', 'default']), /is an embedding model, not a generator/);
});

test('a follow-up is put to the model with the question it follows', async () => {
  const first = await engine.ask('kb', QUESTION);
  const g = scripted('Fog and heavy rain are hard for cameras [1].');
  const r = await speak({ engine, generator: g, name: 'kb', question: 'Is there any downside to that?', conversation: first.state });
  assert.match(g.turns[1].text, /\n\nEarlier question: Why did Tesla bet on cameras instead of LiDAR\?\nQuestion: Is there any downside to that\?$/);
  assert.equal(r.generated, true);
});
