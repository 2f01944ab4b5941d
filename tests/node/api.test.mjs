// Behaviour of the embind API as JS sees it: typed arrays in and out, errors
// with codes, packs across the boundary.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { before, test } from 'node:test';
import { loadCore, seedFiles, testModels } from './helpers.mjs';

let core;
before(async () => {
  core = await loadCore();
});

const model = { id: 'test-random', dims: 32, queryTemplate: '{text}', documentTemplate: '{text}', tokenizerFingerprint: 'none' };

// mulberry32: a small seeded generator, so failures reproduce.
function randomVectors(n, dims, seed) {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * 2 - 1;
  };
  return Float32Array.from({ length: n * dims }, rand);
}

function vectorCollection(name = 'db') {
  const chunks = core.chunk(basename(seedFiles[2]), readFileSync(seedFiles[2], 'utf8'));
  const db = core.collection(name, model);
  const vectors = randomVectors(chunks.length, model.dims, 1);
  assert.equal(db.add(chunks, vectors), chunks.length);
  return { db, chunks, vectors };
}

test('the module is built with SIMD', () => {
  assert.equal(core.dotKernel, 'wasm-simd128');
});

test('tokenizer encode returns typed arrays, padding and offsets', () => {
  const tok = core.tokenizer(readFileSync(join(testModels, 'unigram.model')), { addBos: true, addEos: true });
  const e = tok.encode('Redes neurais do zero', { padTo: 16 });
  assert.ok(e.ids instanceof Int32Array);
  assert.equal(e.ids.length, 16);
  assert.equal(e.ids[0], tok.specialIds.bos);
  assert.equal(e.ids[e.length - 1], tok.specialIds.eos);
  assert.equal(e.ids[e.length], tok.specialIds.pad);
  assert.deepEqual(Array.from(e.attentionMask).slice(e.length - 1, e.length + 1), [1, 0]);
  assert.equal(tok.decode(e.ids.slice(0, e.length)), 'Redes neurais do zero');
  assert.equal(e.pieces.length, e.length);
  // idsOnly (the embedder's path): the same ids and length, no pieces or offsets.
  const lean = tok.encode('Redes neurais do zero', { padTo: 16, idsOnly: true });
  assert.deepEqual(Array.from(lean.ids), Array.from(e.ids));
  assert.equal(lean.length, e.length);
  assert.equal(lean.pieces, undefined);
  assert.equal(lean.begin, undefined);
  tok.dispose();
});

test('vector search finds a stored vector and returns signals', () => {
  const { db, chunks, vectors } = vectorCollection();
  const q = vectors.slice(3 * model.dims, 4 * model.dims);
  const [best] = db.search('', q, { mode: 'vector', k: 3, threshold: 0 });
  assert.equal(best.id, chunks[3].id);
  assert.ok(Math.abs(best.score - 1) < 1e-5);
  assert.deepEqual(best.signals, ['vector']);
  const stored = db.vector(chunks[3].id);
  assert.ok(stored instanceof Float32Array);
  const norm = Math.hypot(...stored);
  assert.ok(Math.abs(norm - 1) < 1e-5, 'stored vectors are unit length');
  const hybrid = db.search(chunks[3].text.slice(0, 40), q, { k: 3, threshold: 0 });
  assert.equal(hybrid[0].id, chunks[3].id);
  assert.deepEqual(hybrid[0].signals, ['vector', 'lexical']);
  db.remove(chunks[3].id);
  assert.ok(db.search('', q, { mode: 'vector', threshold: 0 }).every((r) => r.id !== chunks[3].id));
  db.dispose();
});

test('errors reach JS with readable messages and codes', () => {
  const { db } = vectorCollection();
  assert.throws(() => db.search('x', new Float32Array(8).fill(1)), { code: 'model_mismatch', message: /8 dims/ });
  assert.throws(() => db.remove('nope'), { code: 'not_found', message: "no chunk 'nope' in 'db'" });
  assert.throws(() => db.add([{ id: 'a', text: 'b' }], new Float32Array(5)), { code: 'invalid_argument' });
  assert.throws(() => core.tokenizer(new Uint8Array([1, 2, 3])), { code: 'invalid_argument', message: /not a SentencePiece model/ });
  assert.throws(() => core.loadPack(new Uint8Array(100)), { code: 'corrupt_data', message: /not a vesper pack/ });
  assert.throws(() => core.collection('', null), { code: 'invalid_argument' });
  // Numbers and names from JS are checked, never cast blindly: a negative or fractional k, an unknown mode.
  const q = new Float32Array(model.dims).fill(1);
  for (const k of [-1, 2.5, Number.NaN, 1e300]) {
    assert.throws(() => db.search('x', q, { k }), { code: 'invalid_argument', message: /k must be a whole number/ }, String(k));
  }
  assert.throws(() => db.search('x', q, { mode: 'fuzzy' }), { code: 'invalid_argument', message: /unknown search mode 'fuzzy'/ });
  assert.throws(() => core.chunk('a.txt', 'text', { maxTokens: -5 }), { code: 'invalid_argument', message: /maxTokens/ });
  // A staging request no wasm32 heap can hold is an error, not a trap; the module still works after it.
  assert.throws(() => core.m.stagingFloats(2 ** 40), { code: 'invalid_argument', message: /staging request too large/ });
  assert.ok(db.search('x', q, { k: 2 }).length <= 2);
  db.dispose();
});

test('packs round trip through JS bytes, and damage is refused', () => {
  const { db, chunks, vectors } = vectorCollection('first');
  const lexical = core.collection('words', null);
  lexical.add(chunks);
  const bytes = core.savePack([db, lexical]);
  assert.ok(bytes instanceof Uint8Array);
  const info = core.inspectPack(bytes);
  assert.deepEqual(info.collections.map((c) => [c.name, c.chunks]), [['first', chunks.length], ['words', chunks.length]]);

  const [a, b] = core.loadPack(bytes, model);
  assert.equal(a.name, 'first');
  assert.deepEqual(a.model, model);
  assert.equal(b.model, null);
  const q = vectors.slice(0, model.dims);
  assert.deepEqual(a.search('', q, { mode: 'vector' }), db.search('', q, { mode: 'vector' }));
  assert.deepEqual(core.savePack([a, b]), bytes, 'save(load(pack)) is bit-exact');

  assert.throws(() => core.loadPack(bytes, { ...model, id: 'other-model' }), { code: 'model_mismatch', message: /'first' was embedded with 'test-random'/ });
  assert.throws(() => core.loadPack(bytes.slice(0, bytes.length - 1)), { code: 'corrupt_data', message: /truncated/ });
  const flipped = bytes.slice();
  flipped[flipped.length - 10] ^= 0x40;
  assert.throws(() => core.loadPack(flipped), { code: 'corrupt_data', message: /checksum mismatch/ });
  for (const c of [a, b, db, lexical]) c.dispose();
});

test('memory growth does not invalidate the API', () => {
  const dims = 256;
  const big = core.collection('big', { ...model, dims }, { index: 'hnsw' });
  const n = 3000;
  const chunks = Array.from({ length: n }, (_, i) => ({ id: `c${i}`, text: `chunk number ${i}` }));
  const vectors = randomVectors(n, dims, 7);
  big.add(chunks, vectors);
  assert.equal(big.size, n);
  assert.ok(big.usesHnsw);
  const q = vectors.slice(42 * dims, 43 * dims);
  assert.equal(big.search('', q, { mode: 'vector', k: 1 })[0].id, 'c42');
  big.dispose();
});

test('int8 and binary collections: sizes, scores and packs', () => {
  const chunks = core.chunk(basename(seedFiles[2]), readFileSync(seedFiles[2], 'utf8'));
  const vectors = randomVectors(chunks.length, model.dims, 3);
  const q = vectors.slice(5 * model.dims, 6 * model.dims);
  const ref = core.collection('f32', model);
  ref.add(chunks, vectors);
  const [exact] = ref.search('', q, { mode: 'vector', k: 1 });
  for (const format of ['int8', 'binary']) {
    const db = core.collection(format, model, { vectors: format });
    db.add(chunks, vectors);
    assert.equal(db.vectorFormat, format);
    assert.equal(db.bytesPerVector, format === 'int8' ? model.dims + 4 : 8 + 4 * model.dims);
    const [best] = db.search('', q, { mode: 'vector', k: 1 });
    assert.equal(best.id, chunks[5].id);
    assert.ok(Math.abs(best.score - exact.score) < 0.01, `${format}: ${best.score} vs ${exact.score}`);
    const [back] = core.loadPack(core.savePack([db]));
    assert.equal(back.vectorFormat, format);
    assert.deepEqual(back.search('', q, { mode: 'vector' }), db.search('', q, { mode: 'vector' }));
    db.dispose();
    back.dispose();
  }
  assert.throws(() => core.collection('x', model, { vectors: 'fp8' }), { code: 'invalid_argument', message: /float32, int8 or binary/ });
  ref.dispose();
});

test('a loaded collection is taken once; a collection can be renamed and its pack keeps the new name', () => {
  const { db } = vectorCollection('original');
  const bytes = core.savePack([db]);
  const [first] = core.loadPack(bytes, model);  // takes loaded collection 0
  // Was: a second take moved from an emptied collection, whose pack then failed to load.
  assert.throws(() => core.m.Collection.takeLoaded(0), { code: 'invalid_argument', message: /already taken/ });
  first.dispose();

  const [copy] = core.loadPack(bytes, model);
  copy.rename('original (2)');
  assert.equal(copy.name, 'original (2)');
  assert.throws(() => copy.rename(''), { code: 'invalid_argument' });
  const [reloaded] = core.loadPack(core.savePack([copy]), model);
  assert.equal(reloaded.name, 'original (2)');
  assert.equal(reloaded.size, db.size);
  for (const c of [db, copy, reloaded]) c.dispose();
});

// A spill in memory, as tools/cli/write.mjs fileSpill keeps one in a file;
// `failAt`: the append that finds the disk full.
function memorySpill({ failAt = Infinity } = {}) {
  const parts = [];
  let appends = 0;
  return {
    append(view) {
      if (++appends >= failAt) throw new Error('ENOSPC: no space left on device');
      parts.push(view.slice());
    },
    read(view, offset) {
      const all = Buffer.concat(parts);
      const n = Math.max(0, Math.min(view.length, all.length - offset));
      view.set(all.subarray(offset, offset + n));
      return n;
    },
  };
}

test('a collection built to be saved spills its passages: the same pack, no search', () => {
  const { db, chunks, vectors } = vectorCollection('kept');
  const spilled = core.collection('kept', model);
  spilled.spillTo(memorySpill());
  const half = Math.floor(chunks.length / 2);
  spilled.add(chunks.slice(0, half), vectors.slice(0, half * model.dims));
  spilled.add(chunks.slice(half), vectors.slice(half * model.dims));
  assert.equal(spilled.size, chunks.length);
  assert.deepEqual(core.savePack([spilled]), core.savePack([db]));
  const q = vectors.slice(0, model.dims);
  assert.throws(() => spilled.search('', q, { mode: 'vector' }), { code: 'invalid_argument', message: /built to be saved .*load that pack to search it/ });
  assert.throws(() => spilled.chunks(), { message: /load that pack to read its passages/ });
  assert.throws(() => db.spillTo(memorySpill()), { message: /only from empty/ });
  for (const c of [db, spilled]) c.dispose();
});

test('a spill that fails is reported, and what it left is never saved', () => {
  const chunks = core.chunk(basename(seedFiles[2]), readFileSync(seedFiles[2], 'utf8'));
  const db = core.collection('full', null);
  db.spillTo(memorySpill({ failAt: 2 }));
  db.add(chunks.slice(0, 2));
  assert.throws(() => db.add(chunks.slice(2)), { code: 'internal', message: /could not keep the passages being built: ENOSPC/ });
  assert.throws(() => core.savePack([db]), { message: /could not all be kept/ });
  db.dispose();
});

test('a pack read straight into the core from a source loads and inspects as its bytes do', () => {
  const { db, vectors } = vectorCollection('sourced');
  const bytes = core.savePack([db]);
  let reads = 0;
  const source = { size: bytes.length, read: (view) => { reads++; view.set(bytes); } };
  assert.deepEqual(core.inspectPack(source), core.inspectPack(bytes));
  const [a] = core.loadPack(source, model);
  assert.equal(reads, 2);
  const q = vectors.slice(0, model.dims);
  assert.deepEqual(a.search('', q, { mode: 'vector' }), db.search('', q, { mode: 'vector' }));
  const damaged = { size: bytes.length, read: (view) => { view.set(bytes); view[view.length - 10] ^= 0x40; } };
  assert.throws(() => core.loadPack(damaged), { code: 'corrupt_data', message: /checksum mismatch/ });
  for (const c of [a, db]) c.dispose();
});
