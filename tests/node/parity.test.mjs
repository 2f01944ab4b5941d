// The WASM module must give the same answers as the native build for the
// same inputs: token ids and pieces, chunks, and search results.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { before, test } from 'node:test';
import { loadCore, native, root, seedFiles, testModels } from './helpers.mjs';

let core;
before(async () => {
  core = await loadCore();
});

const corpora = [...seedFiles, join(root, 'tests/data/edge_cases.txt')];

for (const kind of ['unigram', 'bpe']) {
  test(`${kind} tokenizer: WASM ids and pieces equal native on every line`, () => {
    const model = join(testModels, `${kind}.model`);
    const tok = core.tokenizer(readFileSync(model));
    let lines = 0;
    for (const file of corpora) {
      const expected = native(['tokenize', model, file]).trim().split('\n').map((l) => JSON.parse(l));
      const text = readFileSync(file, 'utf8').split('\n');
      if (text.at(-1) === '') text.pop();
      assert.equal(expected.length, text.length, basename(file));
      text.forEach((line, i) => {
        const got = tok.encode(line);
        assert.deepEqual(Array.from(got.ids), expected[i].ids, `${basename(file)}:${i + 1}`);
        assert.deepEqual(got.pieces, expected[i].pieces, `${basename(file)}:${i + 1}`);
        lines++;
      });
    }
    assert.ok(lines > 2000, `only ${lines} lines compared`);
    tok.dispose();
  });
}

test('chunks: WASM equals native for every seed file', () => {
  for (const file of seedFiles) {
    const expected = JSON.parse(native(['chunk', file]));
    const got = core.chunk(basename(file), readFileSync(file, 'utf8'));
    assert.ok(expected.length > 5);
    assert.deepEqual(got, expected, basename(file));
  }
});

test('lexical search: WASM ranks and scores equal native', () => {
  const db = core.collection('seeds', null);
  for (const file of seedFiles) db.add(core.chunk(basename(file), readFileSync(file, 'utf8')));
  for (const q of ['cameras LiDAR Tesla', 'tokenização BPE do zero', '从零构建 最小可运行', 'vibe coding', 'zzzz unknown']) {
    const expected = JSON.parse(native(['search', q, ...seedFiles]));
    const got = db.search(q, null, { threshold: 0 });
    assert.deepEqual(got.map((r) => r.id), expected.map((r) => r.id), q);
    got.forEach((r, i) => assert.ok(Math.abs(r.score - expected[i].score) < 1e-5, `${q} #${i}`));
  }
  db.dispose();
});
