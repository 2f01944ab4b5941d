// The persona over the default knowledge base and model, on the whole graded
// set (bench/persona/set-*.json): no answer holds a fragment (a heading, a
// label with nothing after it, a list marker, a timeline row, a quoted
// question, an arrow, "Imported:", a sentence cut mid-way); a conversation
// keeps its topic for follow-ups and its state survives JSON; role commands
// said in other words are commands and questions that mention them are not.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { openPersona, judgeItem } from '../../bench/persona/eval.mjs';
import { fragmentsOf } from '../../bench/persona/fragments.mjs';
import { readPersonaSet } from '../../bench/persona/set.mjs';
import { root } from './helpers.mjs';

let p;
before(async () => {
  p = await openPersona();
});

test('no answer of the graded set holds a fragment', async () => {
  const bad = [];
  for (const item of readPersonaSet(root)) {
    const v = await judgeItem(p, item);
    if (v.fragments.length) bad.push(`${v.id}: ${v.fragments.join('; ')}`);
  }
  assert.deepEqual(bad, []);
});

test("a document's preamble about the agent is meta text: never an answer", async () => {
  // The persona file's meta_passages mark it (no heading covers it); before, this quoted "Agente que simula eu — ...".
  assert.ok(p.metaIds.size > 0);
  const r = await p.ask('Como devo começar a aprender deep learning?', {});
  assert.doesNotMatch(r.answer, /Agente que simula|Use quando quiser/);
  assert.deepEqual(r.citations.filter((c) => p.metaIds.has(c.id)).map((c) => c.id), []);
  const preamble = p.db.chunks().find((c) => c.text.startsWith('Agente que simula'));
  assert.ok(preamble?.meta, 'the preamble passage is marked meta');
  // The Portuguese copy's disclaimer, which lost its heading; before, an opinion
  // about agents was answered with "Para opiniões atuais, consultar Twitter/X ...".
  const opinion = await p.ask('Qual é a sua opinião sobre agentes de IA?', {});
  assert.doesNotMatch(opinion.answer, /Para opiniões atuais|Esta skill simula/);
  assert.ok(p.db.chunks().find((c) => c.text.startsWith('Esta skill simula'))?.meta, 'the disclaimer passage is marked meta');
});

test('the fragment check catches what it should', () => {
  const headings = new Set(['3.2 — the cameras-only decision (vs. lidar)']);
  assert.deepEqual(fragmentsOf('The way I think about it: LiDAR provides depth, but not semantics. [1]', headings), []);
  assert.match(fragmentsOf('Where this falls short: When it fails: [1]', headings).join(), /label with nothing after it/);
  assert.match(fragmentsOf('~1990s Family emigrates to Toronto, Canada [1]').join(), /timeline row/);
  assert.match(fragmentsOf('3.2 — The Cameras-Only Decision (Vs. LiDAR) [1]', headings).join(), /a heading/);
  assert.match(fragmentsOf('Cameras offer semantically rich information (text on [1]').join(), /cut mid-way/);
  assert.match(fragmentsOf('What is tokenization and why does it matter? [1]').join(), /a question quoted/);
  assert.match(fragmentsOf('Imported: Software 2.0 is here. [1]').join(), /Imported/);
  assert.match(fragmentsOf('a → b. [1]').join(), /arrow/);
});

const textOf = (r) => (r.disclaimer ? r.answer.replace(/^[^\n]*\n\n/, '') : r.answer);  // without the one-time disclaimer

test('a follow-up continues the topic; a new question starts a new one; the state is plain JSON', async () => {
  let state = {};
  const first = await p.ask('Why did Tesla decide to rely on cameras instead of LiDAR?', state);
  assert.equal(first.kind, 'answer');
  state = JSON.parse(JSON.stringify(first.state));
  assert.equal(state.topic, 'Why did Tesla decide to rely on cameras instead of LiDAR?');
  assert.ok(state.passages.length > 0 && state.said.length > 0);
  for (const followUp of ['And then?', 'Tell me more, please.']) {
    const next = await p.ask(followUp, state);
    assert.equal(next.kind, 'answer', followUp);
    // It says something new, from the topic's passages.
    assert.ok(!textOf(first).includes(textOf(next).slice(0, 40)), followUp);
    assert.ok(next.citations.every((c) => state.passages.includes(c.id) || /LiDAR|Camera|Tesla/i.test(c.title.join(' '))), followUp);
    assert.equal(next.state.topic, state.topic);
    state = next.state;
  }
  const fresh = await p.ask('What is micrograd?', state);
  assert.equal(fresh.state.topic, 'What is micrograd?');
  assert.ok(fresh.citations.some((c) => /micrograd/i.test(c.title.join(' '))));
  // "Why?" with nothing before it is a question like any other, not an error.
  const lone = await p.ask('Why?', {});
  assert.ok(['dont_know', 'answer'].includes(lone.kind));
  // A tampered state is refused clearly.
  assert.throws(() => p.persona.answer(p.db, 'And then?', null, { passages: 'x' }, {}), /passages must be a list of strings/);
});

test('role commands in other words are commands; questions that mention the words are questions', async () => {
  const exits = ['OK, you can stop role-playing now.', 'Please stop pretending to be Karpathy.', 'Drop the act, please.',
    'Be yourself again.', 'Pode sair do personagem, por favor.', 'Chega de interpretar o Karpathy.', '好的，不用扮演了。',
    '请退出角色', '别再假装是 Karpathy 了'];
  const reentries = ['Go back to being Andrej, please.', "Let's role-play again.", 'Volta a ser o Andrej, por favor.',
    'Certo, pode voltar ao personagem.', '请回到角色', '好的，继续扮演 Karpathy 吧'];
  const questions = ['Why did you exit Tesla?', 'What role did you play at OpenAI?', 'Por que você saiu da Tesla?',
    '为什么退出 Tesla？', '你在 OpenAI 扮演什么角色？'];
  for (const t of exits) assert.equal((await p.ask(t, {})).kind, 'exited', t);
  for (const t of reentries) assert.equal((await p.ask(t, { inRole: false })).kind, 'reentered', t);
  for (const t of questions) assert.ok(!['exited', 'reentered'].includes((await p.ask(t, {})).kind), t);
});

test('a persona that says when it is unsure answers from the closest passages where the search is unsure; without the phrase, "I don\'t know"', async () => {
  // The search's decision is unsure of this one (confidence between 0.3 and
  // the cut); the passage on judging systems beyond a demo is among the closest.
  const question = 'How do you judge whether a system really works, beyond a nice demo?';
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const file = JSON.parse(readFileSync(join(root, 'web/kb/karpathy/persona.json'), 'utf8'));
  const unsure = "I'm not sure this is what you mean, but this is the closest thing I have written:";
  file.phrases.en.unsure = unsure;
  const hedging = p.core.persona(JSON.stringify(file));
  try {
    const { vectors } = await p.embedder.embed([p.persona.lookupText(question)], { kind: 'query' });
    const plain = p.persona.answer(p.db, question, vectors, {}, {});
    assert.equal(plain.kind, 'dont_know');
    assert.equal(plain.unsure, false);
    const r = hedging.answer(p.db, question, vectors, {}, {});
    assert.equal(r.kind, 'answer');
    assert.equal(r.unsure, true);
    assert.ok(textOf(r).startsWith(unsure), r.answer);
    assert.ok(r.citations.length > 0);
    assert.match(r.answer, /真实世界是最终法官|demo/);
    // Out of the role there is no hedge: the neutral voice does not know.
    const out = hedging.answer(p.db, question, vectors, { inRole: false }, {});
    assert.notEqual(out.unsure, true);
  } finally {
    hedging.dispose();
  }
});
