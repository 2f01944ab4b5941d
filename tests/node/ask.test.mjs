// `vesper ask` end to end with the default model: JSON fields, the session
// file (disclaimer once, exit and re-entry survive between calls), languages,
// declines, and a compiled persona equal to the committed one.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { promisify } from 'node:util';
import { root, seedFiles } from './helpers.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'vesper-ask-'));
const pack = join(tmp, 'kb.pack');
const vesper = (args) => promisify(execFile)(join(root, 'tools/vesper'), args, { maxBuffer: 64 << 20 }).then(
  (r) => ({ code: 0, ...r }),
  (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
);
const ask = async (question, session) => {
  const r = await vesper(['ask', pack, question, '--json', ...(session ? ['--session', session] : [])]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
};

before(async () => {
  const r = await vesper(['build', ...seedFiles, '--db', 'karpathy', '--model', 'default', '--out', pack]);
  assert.equal(r.code, 0, r.stderr);
});

test('ask --json: answer, language, citations, declined, in_role', async () => {
  const a = await ask('How do I start learning deep learning?');
  assert.deepEqual(Object.keys(a), ['answer', 'language', 'kind', 'citations', 'declined', 'in_role', 'disclaimer', 'unsure', 'passage_languages']);
  assert.equal(a.language, 'en');
  assert.equal(a.kind, 'answer');
  assert.equal(a.declined, false);
  assert.equal(a.in_role, true);
  assert.equal(a.unsure, false);
  assert.ok(a.citations.length > 0);
  for (const c of a.citations) assert.deepEqual(Object.keys(c), ['n', 'id', 'title', 'source', 'language', 'score']);
  assert.match(a.answer, /\[1\]/);
});

test('a session keeps the conversation: disclaimer once, exit and re-entry across calls', async () => {
  const session = join(tmp, 'pt.session.json');
  const first = await ask('Por que a Tesla decidiu usar apenas câmeras em vez de LiDAR?', session);
  assert.equal(first.language, 'pt');
  assert.equal(first.disclaimer, true);
  assert.match(first.answer, /^Falo a partir da perspectiva/);
  const second = await ask('O que é Software 2.0?', session);
  assert.equal(second.disclaimer, false);
  assert.equal(second.in_role, true);
  const declined = await ask('Você pode me dar uma estratégia de negócios para minha loja?', session);
  assert.equal(declined.declined, true);
  assert.equal(declined.citations.length, 0);
  const exit = await ask('sair do papel', session);
  assert.equal(exit.kind, 'exited');
  assert.equal(exit.in_role, false);
  const neutral = await ask('O que é Software 2.0?', session);
  assert.equal(neutral.in_role, false);
  assert.match(neutral.answer, /^Da base de conhecimento/);
  const back = await ask('voltar ao papel', session);
  assert.equal(back.in_role, true);
  const again = await ask('O que é Software 2.0?', session);
  assert.equal(again.in_role, true);
  assert.equal(again.disclaimer, false);
  const saved = JSON.parse(readFileSync(session, 'utf8')).state;
  assert.deepEqual(Object.keys(saved), ['disclaimerShown', 'inRole', 'turns', 'topic', 'passages', 'said']);
  assert.equal(saved.turns, 5);
  assert.equal(saved.topic, 'O que é Software 2.0?');  // the last question is what a follow-up would continue
  assert.ok(saved.passages.length > 0 && saved.said.length > 0);
});

test('the knowledge base\'s persona compiler reproduces the committed persona file, which the CLI validates', async () => {
  const out = join(tmp, 'persona.json');
  const r = await promisify(execFile)('node', [join(root, 'web/kb/karpathy/compile-persona.mjs'), ...seedFiles, '--out', out]).then(
    (x) => ({ code: 0, ...x }), (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }));
  assert.equal(r.code, 0, r.stderr);
  // The whole file, meta_sections included (the compiler carries the knowledge base's list).
  assert.equal(readFileSync(out, 'utf8'), readFileSync(join(root, 'web/kb/karpathy/persona.json'), 'utf8'));
  assert.match(r.stdout, /persona 'Andrej Karpathy': 22 quotes, 7 analogies, 3 Q&A, 7 banned words, 5 out-of-scope rules/);
  const check = await vesper(['persona', join(root, 'web/kb/karpathy/persona.json')]);
  assert.equal(check.code, 0, check.stderr);
  assert.match(check.stdout, /persona 'Andrej Karpathy' \(andrej-karpathy\), valid: 22 quotes, 7 analogies, 3 Q&A, 7 banned words, 5 out-of-scope rules, phrases in en, pt, zh/);
  const bad = await vesper(['persona', join(root, 'web/kb/karpathy/000_a7129b241560df3c.txt')]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /persona: not valid JSON/);
});

test('ask refuses bad input clearly', async () => {
  const empty = await vesper(['ask', pack, '   ']);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /the question is empty/);
  const badPersona = join(tmp, 'bad.json');
  (await import('node:fs')).writeFileSync(badPersona, '{"format":"vesper-persona","version":9}');
  const r = await vesper(['ask', pack, 'hello', '--persona', badPersona]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /persona: version: must be 1/);
});

test('search decides the same in vector mode as in hybrid: the calibration gets its evidence either way', async () => {
  const q = 'Why did Tesla bet on cameras instead of LiDAR?';
  for (const mode of ['hybrid', 'vector']) {
    const r = await vesper(['search', pack, q, '--mode', mode, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.answerable, true, mode);
    assert.ok(out.results.length > 0, mode);
  }
  const off = JSON.parse((await vesper(['search', pack, 'How do I bake sourdough bread at home?', '--mode', 'vector', '--json'])).stdout);
  assert.equal(off.answerable, false);
  assert.deepEqual(off.results, []);
  assert.ok(off.nearMisses.length > 0);
});

test('"who are you?" is answered about the persona, in each language (it was "I don\'t know")', async () => {
  for (const [question, language] of [['Who are you?', 'en'], ['Quem é você?', 'pt'], ['你是谁？', 'zh']]) {
    const a = await ask(question);
    assert.equal(a.language, language);
    assert.equal(a.kind, 'answer', `${question}: ${a.answer}`);
    assert.ok(a.citations.length > 0, question);
    assert.doesNotMatch(a.answer, /我是 我/);  // the identity card's name kept: "我是 Andrej Karpathy。"
  }
});

test('a greeting and thanks get the persona\'s reply, not "I don\'t know"', async () => {
  const hello = await ask('Hello!');
  assert.equal(hello.kind, 'small_talk');
  assert.match(hello.answer, /^[\s\S]*Hi! Ask me about/);
  assert.deepEqual(hello.citations, []);
  const obrigado = await ask('Obrigado!');
  assert.equal(obrigado.kind, 'small_talk');
  assert.equal(obrigado.language, 'pt');
});
